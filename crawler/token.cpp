#include "crawler/token.h"

#include <cstdlib>
#include <fstream>

#include "core/error.h"
#include "core/text.h"

namespace convfail::crawler {

std::optional<std::string> load_github_token(const std::optional<std::string>& token_file) {
  if (token_file) {
    std::ifstream in(*token_file);
    if (!in) throw UserError("cannot read token file " + *token_file);
    std::string line;
    std::getline(in, line);
    std::string token = trim(line);
    if (token.empty()) throw UserError("token file " + *token_file + " is empty");
    if (token.find_first_of(" \t\r\n") != std::string::npos)
      throw UserError("token file " + *token_file + " does not hold a single token");
    return token;
  }
  const char* env = std::getenv("GITHUB_TOKEN");
  if (env && *env) return trim(env);
  return std::nullopt;
}

}  // namespace convfail::crawler
