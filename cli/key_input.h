// Keys for the interactive annotation session. LineKeyReader reads one answer per line (input
// piped in, scripts, tests); RawKeyReader reads single keystrokes from a terminal put in raw mode
// by RawTerminal (termios), so one key is one decision.
#pragma once

#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace convfail::cli {

class KeyReader {
 public:
  virtual ~KeyReader() = default;
  // The next answer: "" (Enter), a letter key, or a number ("12"). `choices` are the labels
  // numbered from 1 (a raw reader waits for a second digit only when it could still form a
  // valid number, and shows the pending digit with the choices it could complete). nullopt at
  // end of input.
  virtual std::optional<std::string> next(const std::vector<std::string>& choices) = 0;
  // A line of free text (a note); nullopt at end of input.
  virtual std::optional<std::string> line() = 0;
};

class LineKeyReader : public KeyReader {
 public:
  explicit LineKeyReader(std::istream& in) : in_(in) {}
  std::optional<std::string> next(const std::vector<std::string>& choices) override;
  std::optional<std::string> line() override;

 private:
  std::istream& in_;
};

class RawKeyReader : public KeyReader {
 public:
  // Echoes what the note line types, and a pending first digit ("1_  1 crash · 10 ..."), to
  // `echo` (a terminal: the pending line is cleared with ANSI codes once the number is known).
  RawKeyReader(std::istream& in, std::ostream& echo) : in_(in), echo_(echo) {}
  std::optional<std::string> next(const std::vector<std::string>& choices) override;
  std::optional<std::string> line() override;

 private:
  int get();
  std::istream& in_;
  std::ostream& echo_;
  std::optional<int> pending_;  // a key read ahead after a digit
};

// Puts a terminal file descriptor into raw mode (no line buffering, no echo; signals on, ISIG
// set even when the terminal had it off) and restores it on destruction, and on SIGTERM/SIGHUP
// before dying (SIGINT is core/interrupt.h's, catch_interrupts).
class RawTerminal {
 public:
  explicit RawTerminal(int fd);
  ~RawTerminal();
  RawTerminal(const RawTerminal&) = delete;
  RawTerminal& operator=(const RawTerminal&) = delete;
  bool active() const { return active_; }

 private:
  int fd_;
  bool active_ = false;
};

bool is_terminal(int fd);

// The pending-digit feedback: "1_  1 api_misuse · 10 algorithmic_error · 11 typo  (next digit,
// Enter for 1)" for choices numbered from 1.
std::string pending_hint(const std::string& digits, const std::vector<std::string>& choices);

}  // namespace convfail::cli
