#include "views/highlight.h"

#include <algorithm>
#include <tuple>

namespace convfail::views {

std::vector<HighlightRange> highlight_ranges(
    const std::string& text, const std::string& field, std::int64_t index,
    const std::vector<classifier::StoredEvidence>& evidence) {
  std::vector<std::tuple<std::size_t, std::size_t, std::string>> ranges;
  for (const auto& e : evidence) {
    bool same_field =
        e.field == field || (field == "comment" && e.field.find("comment") != std::string::npos);
    std::string rule = e.dimension + ": " + e.rule;
    if (same_field && e.field_index == index && e.span_start >= 0 && e.span_start < e.span_end &&
        e.span_end <= static_cast<std::int64_t>(text.size()) &&
        text.compare(static_cast<std::size_t>(e.span_start),
                     static_cast<std::size_t>(e.span_end - e.span_start), e.matched_text) == 0) {
      ranges.emplace_back(e.span_start, e.span_end, rule);
    } else if (e.field != "title" && e.matched_text.size() >= 3) {
      auto pos = text.find(e.matched_text);
      if (pos != std::string::npos) ranges.emplace_back(pos, pos + e.matched_text.size(), rule);
    }
  }
  std::sort(ranges.begin(), ranges.end());
  std::vector<HighlightRange> out;
  std::size_t at = 0;
  for (std::size_t i = 0; i < ranges.size();) {
    auto [start, end, rules] = ranges[i];
    for (++i; i < ranges.size() && std::get<0>(ranges[i]) <= end; ++i) {
      end = std::max(end, std::get<1>(ranges[i]));
      const std::string& more = std::get<2>(ranges[i]);
      if ((", " + rules + ",").find(", " + more + ",") == std::string::npos) rules += ", " + more;
    }
    start = std::max(start, at);
    if (start + 1 < end) out.push_back({start, end, rules});
    at = end;
  }
  return out;
}

std::size_t utf16_index(const std::string& text, std::size_t byte) {
  std::size_t units = 0;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) units += c >= 0xF0 ? 2 : 1;  // lead byte (4-byte: surrogate pair)
  }
  return units;
}

}  // namespace convfail::views
