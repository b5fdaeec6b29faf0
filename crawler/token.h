// The GitHub token: from --token-file or $GITHUB_TOKEN. Kept in memory only: the variable is
// removed from the process environment (and its bytes in the initial environment block, which
// /proc/<pid>/environ shows, are zeroed) as soon as it is read, so no child process and no
// reader of /proc sees it.
#pragma once

#include <optional>
#include <string>

namespace convfail::crawler {

// Reads $GITHUB_TOKEN once, keeps it in memory and scrubs it from the environment. Call at
// program start, before any child process can be started; later calls do nothing.
void take_github_token_from_env();

// Reads the token file (first line, whitespace trimmed) when given, else the $GITHUB_TOKEN
// taken by take_github_token_from_env() (taken now if not yet); nullopt when neither is set
// (anonymous crawling). A token with whitespace inside or a control character (any byte below
// 0x20, or 0x7f) is refused from either source: it would inject HTTP headers. Errors name the
// source, never the content.
std::optional<std::string> load_github_token(const std::optional<std::string>& token_file);

// Why `token` cannot be sent as a header value ("" when it can).
std::string token_problem(const std::string& token);

}  // namespace convfail::crawler
