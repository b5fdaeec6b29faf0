// Keys for the interactive annotation session. LineKeyReader reads one answer per line (input
// piped in, scripts, tests); RawKeyReader reads single keystrokes from a terminal put in raw mode
// by RawTerminal (termios), so one key is one decision.
#pragma once

#include <istream>
#include <optional>
#include <ostream>
#include <string>

namespace convfail::cli {

class KeyReader {
 public:
  virtual ~KeyReader() = default;
  // The next answer: "" (Enter), a letter key, or a number ("12"). `max_number` is the largest
  // number that makes sense now (a raw reader waits for a second digit only when it could
  // still form a valid number). nullopt at end of input.
  virtual std::optional<std::string> next(int max_number) = 0;
  // A line of free text (a note); nullopt at end of input.
  virtual std::optional<std::string> line() = 0;
};

class LineKeyReader : public KeyReader {
 public:
  explicit LineKeyReader(std::istream& in) : in_(in) {}
  std::optional<std::string> next(int max_number) override;
  std::optional<std::string> line() override;

 private:
  std::istream& in_;
};

class RawKeyReader : public KeyReader {
 public:
  // Echoes what the note line types to `echo`.
  RawKeyReader(std::istream& in, std::ostream& echo) : in_(in), echo_(echo) {}
  std::optional<std::string> next(int max_number) override;
  std::optional<std::string> line() override;

 private:
  int get();
  std::istream& in_;
  std::ostream& echo_;
  std::optional<int> pending_;  // a key read ahead after a digit
};

// Puts a terminal file descriptor into raw mode (no line buffering, no echo; signals still
// work) and restores it on destruction, and on SIGINT/SIGTERM/SIGHUP before dying.
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

}  // namespace convfail::cli
