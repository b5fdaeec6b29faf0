#include "classifier/explain.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "classifier/extract.h"
#include "core/text.h"

namespace convfail::classifier {

namespace {

bool continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// Issue text on one terminal line: whitespace breaks as spaces, the rest escaped.
std::string flatten(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return terminal_safe(s);
}

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

std::string highlight_in_context(const std::string& text, std::size_t start, std::size_t end,
                                 std::size_t context, bool color) {
  end = std::min(end, text.size());
  start = std::min(start, end);
  std::size_t from = start > context ? start - context : 0;
  while (from > 0 && continuation(static_cast<unsigned char>(text[from]))) --from;
  std::size_t to = std::min(text.size(), end + context);
  while (to < text.size() && continuation(static_cast<unsigned char>(text[to]))) ++to;
  std::string out;
  if (from > 0) out += "...";
  out += flatten(text.substr(from, start - from));
  out += color ? "\x1b[1;31m" : ">>";
  out += flatten(text.substr(start, end - start));
  out += color ? "\x1b[0m" : "<<";
  out += flatten(text.substr(end, to - end));
  if (to < text.size()) out += "...";
  return out;
}

std::string explain_issue(const Engine& engine, const IssueText& issue, bool color) {
  Segments segments = segment_issue(issue);
  Classification c = engine.classify(issue, segments);
  std::ostringstream out;
  out << terminal_safe(issue.repo) << "#" << issue.number << "  " << terminal_safe(issue.title)
      << "\n";
  out << "rules " << engine.rules().hash << " (" << engine.rules().rules.size() << " rules), "
      << segments.fields.size() << " fields, " << segments.bytes() << " bytes\n\n";
  for (const Decision& d : c.decisions) {
    out << d.dimension << ": ";
    if (d.abstained)
      out << "abstained" << (d.label ? " (" + *d.label + ")" : "");
    else
      out << *d.label << (d.subtype ? " / " + *d.subtype : "");
    out << "  confidence " << fixed(d.confidence, 2) << "\n";
    std::vector<std::pair<std::string, double>> scores(d.scores.begin(), d.scores.end());
    std::sort(scores.begin(), scores.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    if (scores.empty()) out << "  (no rule fired)\n";
    for (const auto& [label, s] : scores) out << "  " << fixed(s, 2) << "  " << label << "\n";
    for (const Evidence& e : c.evidence) {
      if (e.dimension != d.dimension) continue;
      const Field* field = nullptr;
      for (const Field& f : segments.fields)
        if (f.kind == e.field && f.index == e.field_index) field = &f;
      out << "    " << (e.weight >= 0 ? "+" : "") << fixed(e.weight, 2) << " " << e.label
          << (e.subtype.empty() ? "" : "/" + e.subtype) << "  " << e.rule_id << "  "
          << field_name(e.field) << "[" << e.field_index << "] " << e.span_start << "-"
          << e.span_end << "\n";
      if (field)
        out << "        " << highlight_in_context(field->text, e.span_start, e.span_end, 50, color)
            << "\n";
    }
    out << "\n";
  }
  Extractions facts = extract_facts(segments);
  out << "facts:" << (facts.empty() ? " none" : "") << "\n";
  for (const auto& [kind, value] : facts)
    out << "  " << kind << ": " << terminal_safe(value) << "\n";
  return out.str();
}

nlohmann::json explain_json(const Engine& engine, const IssueText& issue) {
  using nlohmann::json;
  auto opt = [](const std::optional<std::string>& s) { return s ? json(*s) : json(); };
  Segments segments = segment_issue(issue);
  Classification c = engine.classify(issue, segments);
  json out = {{"repo", issue.repo},
              {"number", issue.number},
              {"title", issue.title},
              {"rules_hash", engine.rules().hash},
              {"rules", engine.rules().rules.size()},
              {"fields", segments.fields.size()},
              {"bytes", segments.bytes()}};
  json dims = json::object();
  for (const Decision& d : c.decisions) {
    json scores = json::object();
    for (const auto& [label, s] : d.scores) scores[label] = s;
    json evidence = json::array();
    for (const Evidence& e : c.evidence) {
      if (e.dimension != d.dimension) continue;
      evidence.push_back({{"rule", e.rule_id},
                          {"label", e.label},
                          {"subtype", e.subtype.empty() ? json() : json(e.subtype)},
                          {"weight", e.weight},
                          {"field", field_name(e.field)},
                          {"field_index", e.field_index},
                          {"span_start", e.span_start},
                          {"span_end", e.span_end},
                          {"matched_text", e.matched_text}});
    }
    dims[d.dimension] = {{"label", opt(d.label)},    {"subtype", opt(d.subtype)},
                         {"abstained", d.abstained}, {"confidence", d.confidence},
                         {"scores", scores},         {"evidence", evidence}};
  }
  out["dimensions"] = dims;
  json facts = json::array();
  for (const auto& [kind, value] : extract_facts(segments))
    facts.push_back({{"kind", kind}, {"value", value}});
  out["facts"] = facts;
  return out;
}

}  // namespace convfail::classifier
