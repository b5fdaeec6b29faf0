#include "repro/scripts/script_repro.h"

#include <algorithm>
#include <chrono>

#include "core/error.h"
#include "core/issue_rows.h"
#include "repro/fetch.h"
#include "repro/verdict_store.h"

namespace convfail::repro {

ScriptReproResult reproduce_script(const std::string& code, const ScriptRunOptions& options,
                                   const ModelEvaluator& evaluate, const MissingModules& missing) {
  auto start = std::chrono::steady_clock::now();
  ScriptReproResult r;
  r.script.sha256 = sha256_hex(code);
  MissingModules find = missing ? missing : [&options](const std::vector<std::string>& mods) {
    return missing_modules(mods, options.python);
  };
  MissingModules lookup = [&](const std::vector<std::string>& mods) {
    std::vector<std::string> absent;
    for (const auto& m : find(mods))
      if (std::find(options.stub_modules.begin(), options.stub_modules.end(), m) ==
          options.stub_modules.end())
        absent.push_back(m);
    return absent;
  };
  if (auto v = static_check(code, lookup)) {
    r.verdict = *v;
  } else {
    r.ran = true;
    ScriptRun run = run_script(code, options);
    r.verdict = decide_script_verdict(run, evaluate);
    r.script.torch_version = run.torch_version;
  }  // the run's scratch directory (script, working dir, exported files) is gone here
  r.verdict.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return r;
}

IssueText load_issue_text(Db& db, std::int64_t issue_id) {
  IssueText t;
  auto q = db.prepare("SELECT author, body FROM issues WHERE id = ?");
  q.bind(1, issue_id);
  if (!q.step()) throw UserError("no issue with id " + std::to_string(issue_id));
  t.author = q.text(0);
  t.body = q.text(1);
  for_each_comment(db, issue_id, [&](CommentRow&& c) {
    t.comments.push_back({std::move(c.author), std::move(c.body)});
  });
  return t;
}

std::vector<std::int64_t> script_issue_ids(Db& db, bool* scanned,
                                           std::map<std::int64_t, std::string>* not_taken) {
  bool have = db.scalar("SELECT count(*) FROM artifacts WHERE kind = 'script'") > 0;
  if (scanned) *scanned = have;
  // Candidates: the scan's script artifacts when there are any, else every issue. Either way an
  // issue is taken only when the program that would run (body, else reporter's comments) uses
  // torch, so both ways select by the same rule.
  auto q = db.prepare(have ? "SELECT issue_id, max(code LIKE '%torch%') FROM artifacts WHERE "
                             "kind = 'script' GROUP BY issue_id ORDER BY issue_id"
                           : "SELECT id, 1 FROM issues WHERE is_pull_request = 0 ORDER BY id");
  std::vector<std::int64_t> ids;
  while (q.step()) {
    std::int64_t id = q.int64(0);
    std::string why;
    if (q.int64(1) == 0) {
      why = kNotTorchScript;
    } else {
      std::string code = extract_script(load_issue_text(db, id)).code;
      if (code.find("torch") != std::string::npos)
        ids.push_back(id);
      else
        why = code.empty() ? kNoPythonProgram : kNotTorchScript;
    }
    if (!why.empty() && have && not_taken) (*not_taken)[id] = why;
  }
  return ids;
}

std::optional<std::int64_t> script_artifact_id(Db& db, std::int64_t issue_id,
                                               const std::string& script_code) {
  auto q = db.prepare(
      "SELECT id, code FROM artifacts WHERE issue_id = ? AND kind = 'script' ORDER BY id");
  q.bind(1, issue_id);
  while (q.step()) {
    std::string code = q.text(1);
    code.erase(code.find_last_not_of(" \t\r\n") + 1);
    if (!code.empty() && script_code.find(code) != std::string::npos) return q.int64(0);
  }
  return std::nullopt;
}

}  // namespace convfail::repro
