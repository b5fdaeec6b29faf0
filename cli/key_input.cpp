#include "cli/key_input.h"

#include <termios.h>
#include <unistd.h>

#include <cctype>
#include <csignal>

#include "core/interrupt.h"

namespace convfail::cli {

std::optional<std::string> LineKeyReader::next(const std::vector<std::string>&) {
  std::string line;
  if (interrupted() || !std::getline(in_, line)) return std::nullopt;
  auto b = line.find_first_not_of(" \t\r");
  if (b == std::string::npos) return std::string();
  return line.substr(b, line.find_last_not_of(" \t\r") - b + 1);
}

std::optional<std::string> LineKeyReader::line() {
  std::string line;
  if (interrupted() || !std::getline(in_, line)) return std::nullopt;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

std::string pending_hint(const std::string& digits, const std::vector<std::string>& choices) {
  std::string out = digits + "_  ";
  std::size_t n = std::stoul(digits);
  bool first = true;
  auto add = [&](std::size_t k) {
    if (k < 1 || k > choices.size()) return;
    out += (first ? "" : " \xc2\xb7 ") + std::to_string(k) + " " + choices[k - 1];
    first = false;
  };
  add(n);
  for (std::size_t d = 0; d <= 9; ++d) add(n * 10 + d);
  out += "  (next digit";
  if (n >= 1 && n <= choices.size()) out += ", Enter for " + digits;
  return out + ")";
}

namespace {
// Ctrl-C read as a key (a terminal that passes it through as a byte): the same as the signal
// ISIG makes of it, so core's handler (catch_interrupts) sees it (and without one, the process
// stops as usual).
std::optional<std::string> interrupt_key() {
  std::raise(SIGINT);
  return std::nullopt;
}
}  // namespace

int RawKeyReader::get() {
  if (interrupted()) return -1;  // Ctrl-C: end of input from here on
  if (pending_) {
    int c = *pending_;
    pending_.reset();
    return c;
  }
  int c = in_.get();
  return in_ ? c : -1;
}

std::optional<std::string> RawKeyReader::next(const std::vector<std::string>& choices) {
  const std::size_t max_number = choices.size();
  while (true) {
    int c = get();
    if (c < 0 || c == 4) return std::nullopt;  // end of input or Ctrl-D
    if (c == 3) return interrupt_key();
    if (c == '\r' || c == '\n') return std::string();
    if (c == 27) {  // escape sequences (arrow keys): ignore the rest of the sequence
      int d = get();
      if (d == '[' || d == 'O') get();
      continue;
    }
    if (std::isdigit(c)) {
      std::string number(1, static_cast<char>(c));
      // Wait for a second digit only while one could still form a valid number (never after a
      // 0: no label is numbered 0x); meanwhile show the digit as pending with the choices it
      // could complete.
      bool shown = false;
      while (std::stoul(number) != 0 && std::stoul(number) * 10 <= max_number) {
        if (!shown) {
          echo_ << "\x1b"
                   "7"
                << pending_hint(number, choices) << std::flush;
          shown = true;
        }
        int d = get();
        if (d >= 0 && std::isdigit(d)) {
          number += static_cast<char>(d);
          continue;
        }
        if (d >= 0 && d != '\r' && d != '\n') pending_ = d;
        break;
      }
      if (shown)
        echo_ << "\x1b"
                 "8\x1b[K"
              << std::flush;  // back to the prompt, line cleared
      return number;
    }
    if (std::isprint(c)) return std::string(1, static_cast<char>(c));
  }
}

std::optional<std::string> RawKeyReader::line() {
  std::string text;
  while (true) {
    int c = get();
    if (c == 3) return interrupt_key();
    if (c < 0 || c == 4) return text.empty() ? std::nullopt : std::optional<std::string>(text);
    if (c == '\r' || c == '\n') break;
    if (c == 127 || c == 8) {
      if (!text.empty()) {
        text.pop_back();
        echo_ << "\b \b" << std::flush;
      }
      continue;
    }
    if (c >= 32) {
      text += static_cast<char>(c);
      echo_ << static_cast<char>(c) << std::flush;
    }
  }
  echo_ << "\n";
  return text;
}

namespace {
// The terminal state to restore from a signal handler.
termios g_saved;
int g_fd = -1;

void restore_and_die(int sig) {
  if (g_fd >= 0) tcsetattr(g_fd, TCSANOW, &g_saved);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}
}  // namespace

RawTerminal::RawTerminal(int fd) : fd_(fd) {
  termios t;
  if (!isatty(fd) || tcgetattr(fd, &t) != 0) return;
  g_saved = t;
  g_fd = fd;
  t.c_lflag &= ~(ICANON | ECHO);
  // Ctrl-C must signal: a terminal left with ISIG off (stty -isig) used to turn it into a byte
  // the key reader ignored, so three presses did nothing while q and Ctrl-D worked.
  t.c_lflag |= ISIG;
  t.c_iflag &= ~(ICRNL);
  t.c_cc[VMIN] = 1;
  t.c_cc[VTIME] = 0;
  if (tcsetattr(fd, TCSANOW, &t) != 0) return;
  active_ = true;
  std::signal(SIGTERM, restore_and_die);
  std::signal(SIGHUP, restore_and_die);
}

RawTerminal::~RawTerminal() {
  if (!active_) return;
  tcsetattr(fd_, TCSANOW, &g_saved);
  g_fd = -1;
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGHUP, SIG_DFL);
}

bool is_terminal(int fd) {
  return isatty(fd) == 1;
}

}  // namespace convfail::cli
