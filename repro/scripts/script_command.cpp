#include "repro/scripts/script_command.h"

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/issue_ref.h"
#include "core/issue_store.h"
#include "repro/scripts/script_ort.h"
#include "repro/verdict_store.h"

namespace convfail::repro {
namespace {

struct Target {
  std::int64_t id;
  std::string ref;
};

// Records one program in `result` and tells the caller.
void add_program(ScriptsCommandResult& result, ScriptedProgram p, const ScriptsProgress& progress) {
  ++result.verdicts[p.result.verdict.verdict];
  result.programs.push_back(std::move(p));
  if (progress.done) progress.done(result.programs.back());
}

ScriptReproResult run_script_file(const ScriptsCommandArgs& args, const ModelEvaluator& evaluate) {
  std::ifstream in(args.script_file, std::ios::binary);
  if (!in) throw UserError("cannot read " + args.script_file);
  std::stringstream code;
  code << in.rdbuf();
  ScriptReproResult r = reproduce_script(code.str(), args.run, evaluate);
  r.script.source = "file";
  return r;
}

std::vector<Target> selected_issues(Db& db, const ScriptsCommandArgs& args) {
  std::vector<Target> targets;
  for (const auto& text : args.issues) {
    IssueRef ref = parse_issue_ref(text);
    targets.push_back({require_issue(db, ref), to_string(ref)});
  }
  if (args.limit < 0) throw UsageError("--limit must not be negative");
  if (args.limit > 0 && targets.size() > static_cast<std::size_t>(args.limit))
    targets.resize(static_cast<std::size_t>(args.limit));
  return targets;
}

}  // namespace

ScriptReproResult run_issue_script(Db& db, std::int64_t issue_id, const ScriptsCommandArgs& args,
                                   const ModelEvaluator& evaluate) {
  ExtractedScript script = extract_script(load_issue_text(db, issue_id));
  ScriptReproResult r = reproduce_script(script.code, args.run, evaluate);
  r.script.source = script.source;
  r.script.blocks = script.blocks;
  if (args.store) {
    Transaction tx(db);
    store_run(db, r.verdict, {issue_id, script_artifact_id(db, issue_id, script.code), r.script});
    tx.commit();
  }
  return r;
}

ScriptsCommandResult run_scripts_command(Db* db, const ScriptsCommandArgs& args,
                                         const ScriptsProgress& progress) {
  exec::RunnerOptions ro;
  ro.limits.memory_bytes = args.runner_memory_mb << 20;
  ro.limits.wall_seconds = args.repro.timeout_seconds;
  exec::OrtRunner runner(ro);  // started on the first exported model, warm afterwards
  return run_scripts_command(db, args, make_ort_evaluator(runner, args.repro), progress);
}

ScriptsCommandResult run_scripts_command(Db* db, const ScriptsCommandArgs& args,
                                         const ModelEvaluator& evaluate,
                                         const ScriptsProgress& progress) {
  // --all is run_reproduce's (reproduce_all.h): it scans and runs the models too.
  int modes = !args.issues.empty() + !args.script_file.empty();
  if (modes != 1) throw UsageError("reproduce --scripts needs one of ISSUE, --all, --script-file");
  ScriptsCommandResult result;
  if (!args.script_file.empty()) {
    add_program(result, {args.script_file, run_script_file(args, evaluate)}, progress);
    return result;
  }
  if (!db) throw UserError("reproduce --scripts needs a database");
  std::vector<Target> targets = selected_issues(*db, args);
  int n = 0;
  for (const auto& t : targets) {
    if (progress.starting) progress.starting(++n, targets.size(), t.ref);
    add_program(result, {t.ref, run_issue_script(*db, t.id, args, evaluate)}, progress);
  }
  return result;
}

}  // namespace convfail::repro
