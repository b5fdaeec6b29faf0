#include "crawler/link_header.h"

namespace convfail::crawler {

std::optional<std::string> link_with_rel(const std::string& header, const std::string& rel) {
  std::size_t pos = 0;
  while (pos < header.size()) {
    std::size_t open = header.find('<', pos);
    if (open == std::string::npos) break;
    std::size_t close = header.find('>', open);
    if (close == std::string::npos) break;
    std::string url = header.substr(open + 1, close - open - 1);
    // Parameters run up to the next link (a ',' followed by '<') or the end.
    std::size_t end = header.find(",", close);
    while (end != std::string::npos) {
      std::size_t next = header.find_first_not_of(" \t", end + 1);
      if (next == std::string::npos || header[next] == '<') break;
      end = header.find(",", end + 1);
    }
    std::string params =
        header.substr(close + 1, end == std::string::npos ? std::string::npos : end - close - 1);
    // rel may be quoted and may hold several space-separated relations.
    std::size_t r = params.find("rel=");
    if (r != std::string::npos) {
      std::size_t b = r + 4;
      std::string value;
      if (b < params.size() && params[b] == '"') {
        std::size_t q = params.find('"', b + 1);
        value = params.substr(b + 1, q == std::string::npos ? std::string::npos : q - b - 1);
      } else {
        std::size_t e = params.find_first_of("; \t", b);
        value = params.substr(b, e == std::string::npos ? std::string::npos : e - b);
      }
      std::size_t s = 0;
      while (s <= value.size()) {
        std::size_t sp = value.find(' ', s);
        std::string one = value.substr(s, sp == std::string::npos ? std::string::npos : sp - s);
        if (one == rel) return url;
        if (sp == std::string::npos) break;
        s = sp + 1;
      }
    }
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return std::nullopt;
}

}  // namespace convfail::crawler
