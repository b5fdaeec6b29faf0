#include "repro/signature.h"

#include <cctype>
#include <regex>

namespace convfail::repro {

std::string error_signature(const std::string& error_text) {
  std::string s = error_text.substr(0, error_text.find('\n'));
  static const std::regex kPath(R"((^|[\s'"(=:])(/[^\s:'"(),]+)+)");
  static const std::regex kHex(R"(0x[0-9a-fA-F]+)");
  static const std::regex kQuoted(R"('[^']*'|"[^"]*")");
  static const std::regex kNumber(R"(-?\d+(\.\d+)?([eE][-+]?\d+)?)");
  static const std::regex kSpaces(R"(\s+)");
  s = std::regex_replace(s, kPath, "$1<path>");
  s = std::regex_replace(s, kHex, "<addr>");
  s = std::regex_replace(s, kQuoted, "'<name>'");
  s = std::regex_replace(s, kNumber, "N");
  s = std::regex_replace(s, kSpaces, " ");
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!s.empty() && s.back() == ' ') s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(0, 1);
  if (s.size() > 240) s.resize(240);
  return s;
}

}  // namespace convfail::repro
