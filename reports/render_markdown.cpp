#include "reports/render.h"

namespace convfail::reports {
namespace {

std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string line(const std::vector<std::string>& cells) {
  std::string s = "|";
  for (const auto& c : cells) s += " " + cell(c) + " |";
  return s + "\n";
}

}  // namespace

std::string render_markdown(const PrintedReport& report) {
  std::string out = "# " + report.title + "\n";
  for (const auto& t : report.tables) {
    out += "\n## " + t.title + "\n\n" + line(t.header) + "|";
    for (std::size_t i = 0; i < t.header.size(); ++i) out += i == 0 ? "---|" : "---:|";
    out += "\n";
    for (const auto& r : t.rows) out += line(r);
    if (!t.note.empty()) out += "\n" + t.note + "\n";
  }
  return out;
}

}  // namespace convfail::reports
