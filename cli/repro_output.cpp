#include "cli/repro_output.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <utility>
#include <vector>

#include "core/text.h"
#include "repro/run_verdict.h"
#include "repro/verdicts.h"

namespace convfail::cli {

using nlohmann::json;

namespace {

// One printed line; everything in it may come from outside (paths, model names, errors).
std::string model_line(const std::string& label, const repro::RunVerdict& v) {
  std::string s = label + "  " + v.verdict;
  if (!v.step.empty() && v.verdict != repro::kNotReproduced) s += " [" + v.step + "]";
  if (!v.reason.empty()) s += "  " + v.reason;
  if (!v.signature.empty()) s += "  " + v.signature;
  bool compared = v.verdict == repro::kWrongOutputReproduced || v.verdict == repro::kNotReproduced;
  if (compared && v.max_abs_error && v.max_rel_error) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "  max_abs=%.3g max_rel=%.3g", *v.max_abs_error,
                  *v.max_rel_error);
    s += buf;
  }
  return terminal_safe(s);
}

// A --suite case: its outcome first; the first line of a failure's message only (a suite has
// many cases).
void print_case(ResultOutput& output, const repro::ReproducedModel& m) {
  json j = repro::model_run_json(m.verdict);
  j["case"] = m.name;
  j["outcome"] = m.suite_outcome;
  bool text = output.is_text();
  output.result(
      text ? terminal_safe(m.suite_outcome) + "  " + model_line(m.name, m.verdict) : std::string(),
      std::move(j),
      text && m.suite_outcome != "pass" ? message_lines(m.verdict.message, "", 1)
                                        : std::vector<std::string>());
}

// {"total": N, VERDICT: COUNT, ...}
json verdict_totals(const std::map<std::string, int>& counts, int total) {
  json t = {{"total", total}};
  for (const auto& [verdict, count] : counts) t[verdict] = count;
  return t;
}

// --all's summary as "summary" beside the totals in --json and --jsonl.
json summary_json(const repro::ReproduceSummary& s, const std::map<std::string, int>& verdicts) {
  return {{"scanned", {{"issues", s.scanned_issues}, {"new_artifacts", s.new_artifacts}}},
          {"models", s.models},
          {"scripts", s.scripts},
          {"verdicts", verdicts},
          {"skipped", s.skipped},
          {"limited", s.limited},
          {"next", s.next}};
}

// "9 its script does not use PyTorch (...); 3 ..." most frequent first.
std::string skipped_text(const std::map<std::string, int>& skipped) {
  std::vector<std::pair<int, std::string>> by_count;
  for (const auto& [why, n] : skipped) by_count.emplace_back(n, why);
  std::stable_sort(by_count.begin(), by_count.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string s;
  for (const auto& [n, why] : by_count)
    s += (s.empty() ? "" : "; ") + std::to_string(n) + " " + why;
  return s;
}

// What `reproduce --all` found, ran and left out, under its results.
void print_summary(const repro::ReproduceSummary& s, const std::map<std::string, int>& verdicts,
                   std::ostream& out) {
  out << "\nscanned " << count_noun(s.scanned_issues, "issue") << " for artifacts ("
      << s.new_artifacts << " new)\n";
  out << "ran " << count_noun(s.scripts, "script") << " and " << count_noun(s.models, "model");
  std::string counts;
  for (const auto& [verdict, n] : verdicts)
    counts += (counts.empty() ? "" : ", ") + verdict + " " + std::to_string(n);
  out << (counts.empty() ? "" : ": " + counts) << "\n";
  int skipped = 0;
  for (const auto& [why, n] : s.skipped) skipped += n;
  if (skipped > 0)
    out << "left out " << count_noun(skipped, "issue") << ": " << skipped_text(s.skipped) << "\n";
  if (s.limited > 0)
    out << "not reached within --limit: " << count_noun(s.limited, "issue") << "\n";
  if (!s.next.empty()) out << "next: " << s.next << "\n";
}

}  // namespace

void print_reproduced(ResultOutput& output, const repro::ReproducedModel& m) {
  if (!m.suite_outcome.empty()) return print_case(output, m);
  json j = repro::model_run_json(m.verdict);
  if (!m.issue_ref.empty()) j["issue"] = m.issue_ref;
  std::string label = m.issue_ref.empty() ? m.name : m.issue_ref + "  " + m.name;
  bool text = output.is_text();
  output.result(text ? model_line(label, m.verdict) : std::string(), std::move(j),
                text ? message_lines(m.verdict.message, "") : std::vector<std::string>());
}

void finish_reproduce(ResultOutput& output, const repro::ReproduceResult& r, std::ostream& out) {
  if (!r.suite) {
    int total = 0;
    for (const auto& [verdict, count] : r.verdicts) total += count;
    output.finish(verdict_totals(r.verdicts, total),
                  r.summary ? summary_json(*r.summary, r.verdicts) : json());
    if (r.summary && output.is_text()) print_summary(*r.summary, r.verdicts, out);
    return;
  }
  const repro::SuiteTotals& t = r.suite_totals;
  output.finish(json{{"total", t.total},
                     {"pass", t.pass},
                     {"fail", t.fail},
                     {repro::kNotRunnable, t.not_runnable},
                     {"runner_starts", r.runner_starts},
                     {"checker_starts", r.checker_starts}});
  if (!output.is_text()) return;
  out << "\ntotal " << t.total << ": pass " << t.pass << ", fail " << t.fail << ", not_runnable "
      << t.not_runnable << "\n";
  for (const auto& [sig, count] : r.fail_signatures)
    out << "  " << count << " x " << terminal_safe(sig) << "\n";
}

void print_script_result(ResultOutput& output, const repro::ScriptedProgram& s) {
  const repro::ScriptReproResult& r = s.result;
  const repro::RunVerdict& v = r.verdict;
  auto text_or_null = [](const std::string& t) { return t.empty() ? json() : json(t); };
  json j = {{"issue", s.name},
            {"verdict", v.verdict},
            {"step", v.step},
            {"signature", v.signature},
            {"reason", v.reason},
            {"output_name", v.output_name},
            {"max_abs_error", repro::number_or_null(v.max_abs_error)},
            {"max_rel_error", repro::number_or_null(v.max_rel_error)},
            {"torch_version", r.script.torch_version},
            {"ort_version", v.ort_version},
            {"script_source", r.script.source},
            {"blocks", r.script.blocks},
            {"duration_ms", v.duration_ms},
            {"message", text_or_null(v.message)},
            {"traceback", text_or_null(v.traceback)}};
  if (v.details.contains("shims")) j["shims"] = v.details["shims"];
  if (v.details.contains("blocked")) j["blocked"] = v.details["blocked"];
  std::ostringstream line;
  if (output.is_text()) {
    line << s.name << "  " << v.verdict;
    if (!v.step.empty()) line << "  [" << v.step << "]";
    if (!v.signature.empty()) line << "  " << v.signature;
    if (!v.reason.empty()) line << "  " << v.reason;
    if (v.max_abs_error) line << "  max_abs_error=" << *v.max_abs_error;
  }
  output.result(
      line.str(), std::move(j),
      output.is_text() ? message_lines(v.message, v.traceback) : std::vector<std::string>());
}

void finish_scripts(ResultOutput& output, const repro::ScriptsCommandResult& r, bool script_file,
                    std::ostream& out) {
  output.finish(verdict_totals(r.verdicts, static_cast<int>(r.programs.size())));
  if (!output.is_text() || script_file) return;
  out << r.programs.size() << " script(s):";
  for (const auto& [verdict, n] : r.verdicts) out << " " << verdict << " " << n;
  out << "\n";
}

}  // namespace convfail::cli
