// Errors that reach the user as one line on stderr.
#pragma once

#include <stdexcept>
#include <string>

namespace convfail {

// A problem with the user's input or environment (bad file, unknown issue, ...): printed as
// "convfail: error: <what>" with exit code 1. Never carries a secret.
class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& what) : std::runtime_error(what) {}
};

// A wrong command-line argument that CLI11 cannot catch itself: exit code 2, like a parse error.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace convfail
