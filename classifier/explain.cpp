#include "classifier/explain.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "classifier/extract.h"
#include "classifier/predict.h"
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

namespace {

std::vector<DimensionResult> classified(const Engine& engine, const Segments& segments,
                                        const Classification& c, const ExplainContext& context) {
  std::vector<ExecutionEvidence> execution = execution_evidence(
      context.verdicts, context.model ? context.model->execution : default_execution_weights());
  return predict_issue(engine, segments, c, context.model, {}, execution);
}

}  // namespace

std::string explain_issue(const Engine& engine, const IssueText& issue, bool color,
                          const ExplainContext& context) {
  Segments segments = segment_issue(issue);
  Classification c = engine.classify(issue, segments);
  std::vector<DimensionResult> results = classified(engine, segments, c, context);
  std::ostringstream out;
  out << terminal_safe(issue.repo) << "#" << issue.number << "  " << terminal_safe(issue.title)
      << "\n";
  out << "rules " << engine.rules().hash << " (" << engine.rules().rules.size() << " rules), "
      << segments.fields.size() << " fields, " << segments.bytes() << " bytes";
  if (context.model) out << ", trained model " << context.model->id;
  out << "\n\n";
  for (std::size_t di = 0; di < c.decisions.size(); ++di) {
    const Decision& d = c.decisions[di];
    const DimensionResult& r = results[di];
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
      if (e.span_start == e.span_end && e.matched_text.empty())
        out << "        (a prior: fires on any text of the field, marks none)\n";
      else if (field)
        out << "        " << highlight_in_context(field->text, e.span_start, e.span_end, 50, color)
            << "\n";
    }
    if (!r.execution.empty()) out << "  execution evidence:\n";
    for (const ExecutionEvidence& e : r.execution)
      out << "    +" << fixed(e.weight, 2) << " " << e.label << "  " << e.key << "  "
          << terminal_safe(e.summary) << "\n";
    if (context.model || !r.execution.empty()) {
      const Decision& f = r.decision;
      out << "  classify: "
          << (f.abstained ? "abstained" + (f.label ? " (" + *f.label + ")" : std::string())
                          : f.label.value_or("") + (f.subtype ? " / " + *f.subtype : ""))
          << " by " << r.predictor << ", confidence " << fixed(f.confidence, 2);
      if (!r.execution.empty())
        out << (r.without_execution == f.label
                    ? "; the text alone gives the same"
                    : "; the text alone: " + r.without_execution.value_or("abstained"));
      out << "\n";
    }
    out << "\n";
  }
  Extractions facts = extract_facts(segments);
  out << "facts:" << (facts.empty() ? " none" : "") << "\n";
  for (const auto& [kind, value] : facts)
    out << "  " << kind << ": " << terminal_safe(value) << "\n";
  return out.str();
}

nlohmann::json explain_json(const Engine& engine, const IssueText& issue,
                            const ExplainContext& context) {
  using nlohmann::json;
  auto opt = [](const std::optional<std::string>& s) { return s ? json(*s) : json(); };
  Segments segments = segment_issue(issue);
  Classification c = engine.classify(issue, segments);
  std::vector<DimensionResult> results = classified(engine, segments, c, context);
  json out = {{"repo", issue.repo},
              {"number", issue.number},
              {"title", issue.title},
              {"rules_hash", engine.rules().hash},
              {"rules", engine.rules().rules.size()},
              {"fields", segments.fields.size()},
              {"bytes", segments.bytes()},
              {"model_id", context.model ? context.model->id : 0}};
  json dims = json::object();
  for (std::size_t di = 0; di < c.decisions.size(); ++di) {
    const Decision& d = c.decisions[di];
    const DimensionResult& r = results[di];
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
    json execution = json::array();
    for (const ExecutionEvidence& e : r.execution) execution.push_back(execution_evidence_json(e));
    json final_decision = {
        {"label", opt(r.decision.label)},    {"subtype", opt(r.decision.subtype)},
        {"abstained", r.decision.abstained}, {"confidence", r.decision.confidence},
        {"predictor", r.predictor},          {"without_execution", opt(r.without_execution)}};
    dims[d.dimension] = {{"label", opt(d.label)},    {"subtype", opt(d.subtype)},
                         {"abstained", d.abstained}, {"confidence", d.confidence},
                         {"scores", scores},         {"evidence", evidence},
                         {"execution", execution},   {"classified", final_decision}};
  }
  out["dimensions"] = dims;
  json facts = json::array();
  for (const auto& [kind, value] : extract_facts(segments))
    facts.push_back({{"kind", kind}, {"value", value}});
  out["facts"] = facts;
  return out;
}

}  // namespace convfail::classifier
