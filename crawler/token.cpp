#include "crawler/token.h"

#include <cstdlib>
#include <cstring>
#include <fstream>

#include "core/error.h"
#include "core/text.h"

extern char** environ;

namespace convfail::crawler {
namespace {

bool g_taken = false;
std::optional<std::string> g_env_token;

}  // namespace

void take_github_token_from_env() {
  if (g_taken) return;
  g_taken = true;
  static const char kName[] = "GITHUB_TOKEN=";
  const std::size_t n = sizeof kName - 1;
  bool found = false;
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, kName, n) != 0) continue;
    if (!found && (*e)[n] != '\0') g_env_token = std::string(*e + n);
    found = true;
    // Zero the value where it lies: for the initial environment that is the block
    // /proc/<pid>/environ reads, which unsetenv() alone leaves untouched.
    char* value = *e + n;
    std::memset(value, 0, std::strlen(value));
  }
  if (found) unsetenv("GITHUB_TOKEN");
}

std::string token_problem(const std::string& token) {
  for (unsigned char c : token) {
    if (c < 0x20 || c == 0x7f) return "contains a control character (such as CR or LF)";
    if (c == ' ') return "contains a space";
  }
  return "";
}

std::optional<std::string> load_github_token(const std::optional<std::string>& token_file) {
  take_github_token_from_env();
  if (token_file) {
    std::ifstream in(*token_file);
    if (!in) throw UserError("cannot read token file " + *token_file);
    std::string line;
    std::getline(in, line);
    std::string token = trim(line);
    if (token.empty()) throw UserError("token file " + *token_file + " is empty");
    std::string more;
    std::string problem = token_problem(token);
    if (problem.empty() && std::getline(in, more) && !trim(more).empty())
      problem = "holds more than one line";
    if (!problem.empty())
      throw UserError("token file " + *token_file + " does not hold a single token (" + problem +
                      ")");
    return token;
  }
  if (!g_env_token) return std::nullopt;
  // Whitespace at the ends is trimmed (harmless); CR or LF inside stays an error.
  std::string token = trim(*g_env_token);
  if (token.empty()) return std::nullopt;
  std::string problem = token_problem(token);
  if (!problem.empty())
    throw UserError("$GITHUB_TOKEN is not a single token (" + problem +
                    "); refusing to send it in a header");
  return token;
}

}  // namespace convfail::crawler
