#include "cli/text_wrap.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

#include "core/text.h"

namespace convfail::cli {

std::vector<std::string> wrap_columns(std::string_view line, std::size_t columns) {
  if (columns == 0) return {std::string(line)};
  struct Unit {
    std::string_view text;
    bool escape;  // zero columns
    bool space;
  };
  std::vector<Unit> units;
  for (std::size_t i = 0; i < line.size();) {
    std::size_t j = i + 1;
    if (line[i] == '\x1b' && j < line.size() && line[j] == '[') {
      ++j;  // CSI: parameters and intermediates, then one final byte 0x40-0x7e
      while (j < line.size() && !(line[j] >= 0x40 && line[j] <= 0x7e)) ++j;
      if (j < line.size()) ++j;
      units.push_back({line.substr(i, j - i), true, false});
    } else {
      while (j < line.size() && (static_cast<unsigned char>(line[j]) & 0xC0) == 0x80) ++j;
      units.push_back({line.substr(i, j - i), false, line[i] == ' '});
    }
    i = j;
  }
  std::vector<std::string> out;
  std::string colour;  // the SGR sequence in force where the current piece starts
  std::size_t begin = 0;
  while (begin < units.size()) {
    std::size_t used = 0, end = begin, after_space = begin;
    for (; end < units.size(); ++end) {
      if (units[end].escape) continue;
      if (used == columns) break;
      ++used;
      if (units[end].space) after_space = end + 1;
    }
    // Break after the last space unless the piece ends right before one (it fits whole).
    if (end < units.size() && !units[end].space && after_space > begin) end = after_space;
    std::string piece = colour;
    for (std::size_t k = begin; k < end; ++k) {
      piece += units[k].text;
      if (units[k].escape && units[k].text.back() == 'm')
        colour = units[k].text == "\x1b[0m" || units[k].text == "\x1b[m"
                     ? std::string()
                     : std::string(units[k].text);
    }
    if (end < units.size() && !colour.empty()) piece += "\x1b[0m";
    out.push_back(std::move(piece));
    begin = end;
    while (begin < units.size() && units[begin].space) ++begin;  // no piece starts with a space
  }
  if (out.empty()) out.emplace_back();
  return out;
}

std::size_t terminal_columns(int fd) {
  winsize ws{};
  if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS"))
    if (auto n = parse_int64(c); n && *n > 0 && *n < 10000) return static_cast<std::size_t>(*n);
  return 0;
}

}  // namespace convfail::cli
