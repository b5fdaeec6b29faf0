#include "repro/scripts/script_command.h"

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "core/error.h"
#include "core/issue_ref.h"
#include "core/issue_store.h"
#include "repro/scripts/script_ort.h"
#include "repro/verdict_store.h"

namespace convfail::repro {
namespace {

void print_result(const std::string& what, const ScriptReproResult& r, ResultOutput& output) {
  const RunVerdict& v = r.verdict;
  nlohmann::json j = {
      {"issue", what},
      {"verdict", v.verdict},
      {"step", v.step},
      {"signature", v.signature},
      {"reason", v.reason},
      {"output_name", v.output_name},
      {"max_abs_error", number_or_null(v.max_abs_error)},
      {"max_rel_error", number_or_null(v.max_rel_error)},
      {"torch_version", r.script.torch_version},
      {"ort_version", v.ort_version},
      {"script_source", r.script.source},
      {"blocks", r.script.blocks},
      {"duration_ms", v.duration_ms},
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
    if (v.max_abs_error) line << "  max_abs_error=" << *v.max_abs_error;
  }
  output.result(
      line.str(), std::move(j),
      output.is_text() ? message_lines(v.message, v.traceback) : std::vector<std::string>());
}

}  // namespace

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
  int modes = args.all + !args.issues.empty() + !args.script_file.empty();
  if (modes != 1) throw UsageError("reproduce --scripts needs one of ISSUE, --all, --script-file");
  if (!args.script_file.empty()) {
    std::ifstream in(args.script_file, std::ios::binary);
    if (!in) throw UserError("cannot read " + args.script_file);
    std::stringstream code;
    code << in.rdbuf();
    ScriptReproResult r = reproduce_script(code.str(), args.run, evaluate);
    r.script.source = "file";
    ResultOutput output(args.format, out);
    print_result(args.script_file, r, output);
    output.finish({{"total", 1}, {r.verdict.verdict, 1}});
    return 1;
  }
  if (!dbp) throw UserError("reproduce --scripts needs a database");
  Db& db = *dbp;
  struct Target {
    std::int64_t id;
    std::string ref;
  };
  std::vector<Target> targets;
  if (args.all) {
    auto name = db.prepare(
        "SELECT r.full_name, i.number FROM issues i JOIN repositories r ON r.id = i.repo_id "
        "WHERE i.id = ?");
    bool scanned = false;
    auto ids = script_issue_ids(db, &scanned);
    if (!scanned)
      err << "convfail: no script artifacts stored (see `convfail artifacts scan`); taking the "
             "issues whose code blocks use torch\n";
    for (std::int64_t id : ids) {
      name.bind(1, id);
      if (name.step()) targets.push_back({id, name.text(0) + "#" + std::to_string(name.int64(1))});
      name.reset();
    }
    if (targets.empty()) throw UserError("no issue has a script that uses torch");
  } else {
    for (const auto& text : args.issues) {
      IssueRef ref = parse_issue_ref(text);
      targets.push_back({require_issue(db, ref), to_string(ref)});
    }
  }

  if (args.limit < 0) throw UsageError("--limit must not be negative");
  if (args.limit > 0 && targets.size() > static_cast<std::size_t>(args.limit))
    targets.resize(static_cast<std::size_t>(args.limit));

  ResultOutput output(args.format, out);
  std::map<std::string, int> counts;
  int done = 0;
  for (const auto& t : targets) {
    if (args.progress)
      err << "[" << done + 1 << "/" << targets.size() << "] " << t.ref << "\n" << std::flush;
    IssueText text = load_issue_text(db, t.id);
    ExtractedScript script = extract_script(text);
    ScriptReproResult r = reproduce_script(script.code, args.run, evaluate);
    r.script.source = script.source;
    r.script.blocks = script.blocks;
    if (args.store) {
      std::optional<std::int64_t> artifact = script_artifact_id(db, t.id, script.code);
      Transaction tx(db);
      store_run(db, r.verdict, {t.id, artifact, r.script});
      tx.commit();
    }
    const RunVerdict& v = r.verdict;
    ++counts[v.verdict];
    ++done;
    print_result(t.ref, r, output);
  }
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
