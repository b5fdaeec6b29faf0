// A command the user stopped with Ctrl-C that stopped cleanly, its work so far saved.
#pragma once

#include <stdexcept>
#include <string>

namespace convfail::cli {

// Printed by main() as "convfail: <what>" (what says what was kept, e.g. "interrupted: 3 answers
// of this run saved ...; run the same command to resume") with exit code 130, the shell's code
// for SIGINT.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace convfail::cli
