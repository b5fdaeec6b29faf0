#include "repro/scripts/script_command.h"

#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "core/error.h"
#include "core/issue_ref.h"
#include "core/issue_store.h"
#include "repro/scripts/script_ort.h"

namespace convfail::repro {
namespace {

nlohmann::json num_or_null(double v) {
  return std::isnan(v) ? nlohmann::json() : nlohmann::json(v);
}

void print_result(const std::string& what, const ScriptReproResult& r, ResultOutput& output) {
  const ScriptVerdict& v = r.verdict;
  nlohmann::json j = {
      {"issue", what},
      {"verdict", v.verdict},
      {"step", v.step},
      {"signature", v.signature},
      {"reason", v.reason},
      {"output_name", v.output_name},
      {"max_abs_error", num_or_null(v.max_abs_error)},
      {"max_rel_error", num_or_null(v.max_rel_error)},
      {"torch_version", r.torch_version},
      {"ort_version", v.ort_version},
      {"script_source", r.script_source},
      {"blocks", r.blocks},
      {"duration_ms", r.duration_ms},
      {"message", v.message.empty() ? nlohmann::json() : nlohmann::json(v.message)},
      {"traceback", v.traceback.empty() ? nlohmann::json() : nlohmann::json(v.traceback)}};
  if (v.details.contains("shims")) j["shims"] = v.details["shims"];
  if (v.details.contains("blocked")) j["blocked"] = v.details["blocked"];
  std::ostringstream line;
  if (output.is_text()) {
    line << what << "  " << v.verdict;
    if (!v.step.empty()) line << "  [" << v.step << "]";
    if (!v.signature.empty()) line << "  " << v.signature;
    if (!v.reason.empty()) line << "  " << v.reason;
    if (!std::isnan(v.max_abs_error)) line << "  max_abs_error=" << v.max_abs_error;
  }
  output.result(
      line.str(), std::move(j),
      output.is_text() ? message_lines(v.message, v.traceback) : std::vector<std::string>());
}

}  // namespace

int run_script_issues(Db& db, const IssueList& issues, const ScriptsCommandArgs& args,
                      const ModelEvaluator& evaluate, ResultOutput& output, std::ostream& err,
                      std::map<std::string, int>& verdicts) {
  int done = 0;
  for (const auto& [id, ref] : issues) {
    if (args.progress)
      err << "[" << done + 1 << "/" << issues.size() << "] " << ref << "\n" << std::flush;
    ExtractedScript script = extract_script(load_issue_text(db, id));
    ScriptReproResult r = reproduce_script(script.code, args.run, evaluate);
    r.script_source = script.source;
    r.blocks = script.blocks;
    if (args.store) store_script_run(db, id, script_artifact_id(db, id, script.code), r);
    ++verdicts[r.verdict.verdict];
    ++done;
    print_result(ref, r, output);
  }
  return done;
}

int run_scripts_command(Db* db, const ScriptsCommandArgs& args, std::ostream& out,
                        std::ostream& err) {
  exec::RunnerOptions ro;
  ro.limits.memory_bytes = args.runner_memory_mb << 20;
  ro.limits.wall_seconds = args.repro.timeout_seconds;
  exec::OrtRunner runner(ro);  // started on the first exported model, warm afterwards
  return run_scripts_command(db, args, make_ort_evaluator(runner, args.repro), out, err);
}

int run_scripts_command(Db* dbp, const ScriptsCommandArgs& args, const ModelEvaluator& evaluate,
                        std::ostream& out, std::ostream& err) {
  // --all goes through run_reproduce (repro_command.h), which scans and runs models too.
  int modes = !args.issues.empty() + !args.script_file.empty();
  if (modes != 1) throw UsageError("reproduce --scripts needs one of ISSUE, --all, --script-file");
  if (!args.script_file.empty()) {
    std::ifstream in(args.script_file, std::ios::binary);
    if (!in) throw UserError("cannot read " + args.script_file);
    std::stringstream code;
    code << in.rdbuf();
    ScriptReproResult r = reproduce_script(code.str(), args.run, evaluate);
    r.script_source = "file";
    ResultOutput output(args.format, out);
    print_result(args.script_file, r, output);
    output.finish({{"total", 1}, {r.verdict.verdict, 1}});
    return 1;
  }
  if (!dbp) throw UserError("reproduce --scripts needs a database");
  Db& db = *dbp;
  IssueList targets;
  for (const auto& text : args.issues) {
    IssueRef ref = parse_issue_ref(text);
    targets.emplace_back(require_issue(db, ref), to_string(ref));
  }

  if (args.limit < 0) throw UsageError("--limit must not be negative");
  if (args.limit > 0 && targets.size() > static_cast<std::size_t>(args.limit))
    targets.resize(static_cast<std::size_t>(args.limit));

  ResultOutput output(args.format, out);
  std::map<std::string, int> counts;
  int done = run_script_issues(db, targets, args, evaluate, output, err, counts);
  nlohmann::json totals = {{"total", done}};
  for (const auto& [k, n] : counts) totals[k] = n;
  output.finish(totals);
  if (output.is_text()) {
    out << done << " script(s):";
    for (const auto& [k, n] : counts) out << " " << k << " " << n;
    out << "\n";
  }
  return done;
}

}  // namespace convfail::repro
