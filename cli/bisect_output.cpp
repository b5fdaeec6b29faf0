#include "cli/bisect_output.h"

#include <cstdio>
#include <string>

#include "core/text.h"
#include "repro/verdicts.h"

namespace convfail::cli {

using nlohmann::json;

namespace {

std::string opt_text(const std::optional<std::string>& v) {
  return v ? *v : std::string("-");
}

// A release tried: its verdict, and its step, reason and signature or both flaky verdicts.
std::string tried_line(const repro::TriedRelease& tr) {
  const repro::ReleaseRun& first = tr.runs.front();
  std::string line = "  " + tr.version + "  " + tr.verdict();
  if (tr.flaky) {
    line += " (" + tr.runs[0].verdict + ", then " + tr.runs[1].verdict + ")";
  } else {
    if (!first.step.empty() && first.verdict != repro::kNotReproduced)
      line += " [" + first.step + "]";
    if (!first.reason.empty()) line += "  " + first.reason;
    if (!first.signature.empty()) line += "  " + first.signature;
  }
  if (tr.runs.size() > 1 && !tr.flaky) line += "  (confirmed)";
  if (first.stored) line += "  (stored)";
  return line;
}

std::string change_line(const repro::VerdictChange& c) {
  std::string line = "change: " + c.from + " in " + c.before + " -> " + c.to + " in " + c.after;
  if (!c.gap.empty()) {
    line += " (unknown between:";
    for (const auto& g : c.gap) line += " " + g;
    line += ")";
  }
  return line;
}

// The answer: first bad and good, regressed in, a missing kernel, the newest release, the runs.
void print_answer(std::ostream& out, const repro::BisectResult& r, double seconds) {
  std::string first_bad = opt_text(r.first_bad);
  if (r.first_bad && !r.regressed_in && r.tried.size() && r.first_bad == r.tried.front().version)
    first_bad += " (the oldest release tried)";
  out << "first bad: " << terminal_safe(first_bad) << "\n";
  out << "first good: " << terminal_safe(opt_text(r.fixed_in)) << "\n";
  out << "regressed in: " << terminal_safe(opt_text(r.regressed_in)) << "\n";
  if (auto kernel = r.kernel_text()) out << terminal_safe(*kernel) << "\n";
  if (r.newest_known)
    out << "still failing in the newest (" << terminal_safe(*r.newest_known)
        << "): " << (r.still_failing ? "yes" : "no") << "\n";
  else
    out << "no release gave a verdict\n";
  char buf[128];
  std::snprintf(buf, sizeof buf, "runs: %d new, %d stored, %.1f s\n", r.new_runs, r.stored_runs,
                seconds);
  out << buf;
}

}  // namespace

void print_bisect_text(std::ostream& out, const repro::BisectedModel& m) {
  const repro::BisectResult& r = m.result;
  out << terminal_safe(m.label) << "  (sha256 " << m.sha256.substr(0, 12) << ")\n";
  out << "releases " << terminal_safe(r.releases.front()) << " .. "
      << terminal_safe(r.releases.back()) << " (" << r.releases.size() << "), tried "
      << r.tried.size() << ":\n";
  for (const auto& tr : r.tried) out << terminal_safe(tried_line(tr)) << "\n";
  for (const auto& c : r.changes) out << terminal_safe(change_line(c)) << "\n";
  if (r.changes.empty() && r.newest_known) out << "no change of verdict\n";
  print_answer(out, r, m.seconds);
}

json bisects_json(const std::vector<repro::BisectedModel>& models,
                  const repro::BisectRequest& request) {
  json results = json::array();
  for (const auto& m : models) {
    json rj = m.result.to_json();
    rj["model"] = m.model;
    rj["sha256"] = m.sha256;
    rj["seconds"] = m.seconds;
    if (m.issue_id) rj["issue"] = request.issue;
    if (request.group_id) rj["group"] = *request.group_id;
    results.push_back(std::move(rj));
  }
  return json{{"bisects", results}};
}

void print_bisect_event(std::ostream& err, const repro::BisectEvent& e, bool progress) {
  using Kind = repro::BisectEvent::Kind;
  std::string subject = terminal_safe(e.subject);
  switch (e.kind) {
    case Kind::kSkipped:
      err << "bisect: " << subject << ": " << terminal_safe(e.reason) << "\n";
      return;
    case Kind::kScriptNoModel:
      err << "bisect: " << subject << ": its repro script exported no model ("
          << terminal_safe(e.verdict) << (e.reason.empty() ? "" : ": " + terminal_safe(e.reason))
          << ")\n";
      return;
    default:
      break;
  }
  if (!progress) return;
  if (e.kind == Kind::kScriptRunning)
    err << "bisect: " << subject << ": running its repro script\n";
  else if (e.kind == Kind::kNotInstalled)
    err << "  " << subject << ": install failed\n";
  else if (e.kind == Kind::kInstalled)
    err << "  installed onnxruntime-node " << subject << " (" << static_cast<int>(e.seconds)
        << " s)\n";
  else
    err << "  " << subject << (e.attempt == 2 ? " (again)" : "") << ": " << terminal_safe(e.verdict)
        << "\n";
}

}  // namespace convfail::cli
