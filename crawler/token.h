// The GitHub token: from --token-file or $GITHUB_TOKEN. Kept in memory only.
#pragma once

#include <optional>
#include <string>

namespace convfail::crawler {

// Reads the token file (first line, whitespace trimmed) when given, else $GITHUB_TOKEN; nullopt
// when neither is set (anonymous crawling). Errors name the file, never its content.
std::optional<std::string> load_github_token(const std::optional<std::string>& token_file);

}  // namespace convfail::crawler
