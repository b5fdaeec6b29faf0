#include "repro/reproduce_all.h"

#include <algorithm>
#include <optional>
#include <set>

#include "repro/artifact_scan.h"
#include "repro/scripts/script_ort.h"
#include "repro/scripts/script_repro.h"

namespace convfail::repro {
namespace {

// Per issue: "OWNER/REPO#N", and what the artifacts table holds for it.
struct IssueArtifacts {
  std::string ref;
  bool fetched_model = false;  // a model or archive fetched ok
  bool model_link = false;     // a model or archive not fetched yet
  bool model_failed = false;   // a model or archive whose fetch failed or was skipped
  bool file_host = false;      // an external link (file host)
  bool script = false;         // a script artifact
};

std::map<std::int64_t, IssueArtifacts> issue_artifacts(Db& db) {
  std::map<std::int64_t, IssueArtifacts> out;
  auto issues = db.prepare(
      "SELECT i.id, r.full_name || '#' || i.number FROM issues i JOIN repositories r ON"
      " r.id = i.repo_id ORDER BY i.id");
  while (issues.step()) out[issues.int64(0)].ref = issues.text(1);
  auto st = db.prepare("SELECT issue_id, kind, fetch_status FROM artifacts ORDER BY id");
  while (st.step()) {
    auto it = out.find(st.int64(0));
    if (it == out.end()) continue;
    IssueArtifacts& a = it->second;
    std::string kind = st.text(1);
    std::optional<std::string> status =
        st.is_null(2) ? std::nullopt : std::optional<std::string>(st.text(2));
    if (kind == "script") {
      a.script = true;
    } else if (kind == "external_link") {
      a.file_host = true;
    } else if (kind == "model" || kind == "archive") {
      if (!status)
        a.model_link = true;
      else if (*status == "ok")
        a.fetched_model = true;
      else
        a.model_failed = true;
    }
  }
  return out;
}

// Why an issue that runs nothing was left out, from the most actionable reason down.
std::string skip_reason(const IssueArtifacts& a, bool models, const std::string* script_why) {
  if (a.fetched_model && !models) return kModelNotSelected;
  if (a.model_link) return kModelNotFetched;
  if (a.model_failed) return kModelFetchFailed;
  if (script_why) return *script_why;
  if (a.file_host) return kFileHostOnly;
  return kNothingFound;
}

// The command to run next when nothing ran, from the reasons issues were left out.
std::string next_step(const ReproduceSummary& s) {
  if (s.models + s.scripts > 0) return "";
  if (s.skipped.count(kModelNotFetched))
    return "convfail artifacts fetch, then convfail reproduce --all";
  if (s.skipped.count(kModelNotSelected)) return "convfail reproduce --all (without --scripts)";
  if (s.skipped.count(kScriptNotSelected)) return "convfail reproduce --all (without --models)";
  return "nothing here can run: convfail artifacts list shows what the issues link";
}

}  // namespace

AllSelection select_all(Db& db, bool models, bool scripts) {
  AllSelection sel;
  std::map<std::int64_t, std::string> script_why;
  std::vector<std::int64_t> script_ids = script_issue_ids(db, nullptr, &script_why);
  std::set<std::int64_t> runs_script(script_ids.begin(), script_ids.end());
  for (const auto& [id, a] : issue_artifacts(db)) {
    bool model = models && a.fetched_model;
    bool script = scripts && runs_script.count(id) > 0;
    if (model) sel.model_issues.emplace_back(id, a.ref);
    if (script) sel.script_issues.emplace_back(id, a.ref);
    if (model || script) continue;
    if (!scripts && runs_script.count(id)) {
      sel.skipped[id] = kScriptNotSelected;
      continue;
    }
    auto why = script_why.find(id);
    sel.skipped[id] = skip_reason(a, models, why == script_why.end() ? nullptr : &why->second);
  }
  return sel;
}

namespace {

// The scripts of the selected issues, after the models, within what --limit leaves.
void run_all_scripts(Db& db, IssueList issues, const ReproduceRequest& req, exec::OrtRunner& runner,
                     const ReproduceProgress& progress, ReproduceResult& result) {
  int used = static_cast<int>(result.models.size());
  std::size_t room =
      req.limit ? static_cast<std::size_t>(std::max(0, req.limit - used)) : issues.size();
  if (issues.size() > room) {
    result.summary->limited += static_cast<int>(issues.size() - room);
    issues.resize(room);
  }
  ScriptsCommandArgs args;
  args.run = req.script_run;
  args.repro = req.options;
  ModelEvaluator evaluate = make_ort_evaluator(runner, req.options);
  for (const auto& [id, ref] : issues) {
    if (progress.starting) progress.starting(++used, 0, ref);
    result.scripts.push_back({ref, run_issue_script(db, id, args, evaluate)});
    ++result.verdicts[result.scripts.back().result.verdict.verdict];
    if (progress.script_done) progress.script_done(result.scripts.back());
  }
}

}  // namespace

void reproduce_all(Db& db, const ReproduceRequest& req, exec::OrtRunner& runner,
                   const ReproduceProgress& progress, ReproduceResult& result) {
  ReproduceSummary& summary = result.summary.emplace();
  ScanCounts scan = scan_issues(db, std::nullopt);  // one short transaction; a rescan adds nothing
  summary.scanned_issues = scan.issues;
  summary.new_artifacts = scan.inserted;
  AllSelection sel = select_all(db, !req.scripts_only, !req.models_only);
  for (const auto& [id, why] : sel.skipped) ++summary.skipped[why];
  summary.limited = reproduce_issue_models(db, sel.model_issues, runner, req, progress, result);
  run_all_scripts(db, sel.script_issues, req, runner, progress, result);
  summary.models = static_cast<int>(result.models.size());
  summary.scripts = static_cast<int>(result.scripts.size());
  summary.next = next_step(summary);
}

}  // namespace convfail::repro
