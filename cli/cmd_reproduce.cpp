#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/repro_options.h"
#include "cli/repro_output.h"
#include "core/error.h"
#include "core/text.h"
#include "repro/repro_command.h"
#include "repro/scripts/script_command.h"

namespace convfail::cli {

namespace {

struct ReproduceFlags {
  bool json = false, jsonl = false;
  bool scripts = false, models = false;
  bool unsafe_no_sandbox = false;
  std::uint64_t script_memory_mb = 8192;
  repro::ScriptsCommandArgs script_args;
};

const char* const kReproduceHelp =
    "Re-execute ONNX models and record verdicts. For each model: parse, onnx checker and strict\n"
    "shape inference (libonnx), then ONNX Runtime (Node.js runner, sandboxed) with graph\n"
    "optimizations disabled and all enabled, on given inputs (input_N.pb) or inputs generated\n"
    "from the graph; outputs are compared with reference outputs (output_N.pb) when given and\n"
    "optimized against unoptimized. Verdicts: crash_reproduced, wrong_output_reproduced,\n"
    "not_reproduced, not_runnable. Issue and --model runs are stored in repro_runs.\n"
    "Each result line ends with the normalised error signature (for grouping: paths, names\n"
    "and numbers replaced); under it come the error message as the checker, the runtime or\n"
    "the script said it (cut, control characters escaped) and, for scripts, the first lines\n"
    "of the Python traceback. `convfail show ISSUE` shows them again.\n"
    "--json prints one document {\"results\": [...], \"totals\": {...}} at the end (each\n"
    "result with \"message\" and \"traceback\", null when there is none); --jsonl streams one\n"
    "result per line and a last line {\"totals\": {...}}.\n"
    "\n"
    "--all first scans every issue for artifacts (as `artifacts scan`: links to models and\n"
    "archives, code blocks that export a model), then re-runs each fetched model or archive\n"
    "and each PyTorch repro script (--models or --scripts keeps one kind). It ends with what\n"
    "it found and ran, how many issues it left out and why (a model link not fetched yet, a\n"
    "script that does not use PyTorch, nothing to run...), and the command to run next when\n"
    "nothing ran; --json and --jsonl carry the same as \"summary\". Model links are not\n"
    "downloaded here: `convfail artifacts fetch` does that.";

// Progress on a terminal: "[N/CASES] NAME" (or "[N] ISSUE") rewritten in place, cleared at the end.
void show_progress(int n, std::size_t cases, const std::string& name) {
  std::cerr << "\r[" << n;
  if (cases) std::cerr << "/" << cases;
  std::cerr << "] " << terminal_safe(name) << "\x1b[K" << std::flush;
}

// `reproduce --scripts ISSUE` or `--script-file`: the results printed as they come, then the
// totals (`--scripts --all` is run_reproduce's).
void run_scripts(Context& ctx, const repro::ReproduceRequest& request, const ReproduceFlags& flags,
                 OutputFormat format) {
  repro::ScriptsCommandArgs s = flags.script_args;
  s.run.memory_bytes = flags.script_memory_mb << 20;
  if (!request.issue.empty()) s.issues = {request.issue};
  s.repro = request.options;
  s.runner_memory_mb = request.memory_mb;
  s.limit = request.limit;
  bool progress = Context::stderr_is_tty();
  ResultOutput output(format, std::cout);
  repro::ScriptsProgress on;
  if (progress)
    on.starting = [](int n, std::size_t selected, const std::string& ref) {
      std::cerr << "[" << n << "/" << selected << "] " << ref << "\n" << std::flush;
    };
  on.done = [&output](const repro::ScriptedProgram& p) { print_script_result(output, p); };
  repro::ScriptsCommandResult r =
      repro::run_scripts_command(s.script_file.empty() ? &ctx.db() : nullptr, s, on);
  finish_scripts(output, r, !s.script_file.empty(), std::cout);
}

// `reproduce`: PyTorch scripts (--scripts), or models of issues, one file or a backend suite.
void run_reproduce_command(Context& ctx, repro::ReproduceRequest& request,
                           const ReproduceFlags& flags) {
  OutputFormat format = flags.json    ? OutputFormat::kJson
                        : flags.jsonl ? OutputFormat::kJsonl
                                      : OutputFormat::kText;
  apply_sandbox_choice(flags.unsafe_no_sandbox);
  if (flags.scripts && !request.all) return run_scripts(ctx, request, flags, format);
  int modes =
      !request.issue.empty() + request.all + !request.model.empty() + !request.suite.empty();
  if (modes != 1) throw UsageError("reproduce needs one of ISSUE, --all, --model, --suite");
  bool progress = Context::stderr_is_tty();
  request.scripts_only = flags.scripts;
  request.models_only = flags.models;
  request.script_run = flags.script_args.run;
  request.script_run.memory_bytes = flags.script_memory_mb << 20;
  // --model stores the file's verdicts (bisect reuses them): like import, it may start a
  // database; ISSUE and --all need the issues, so their database must exist.
  Db* db = !request.suite.empty() ? nullptr : !request.model.empty() ? &ctx.create_db() : &ctx.db();
  ResultOutput output(format, std::cout);
  repro::ReproduceProgress on;
  if (progress) on.starting = show_progress;
  on.done = [&output](const repro::ReproducedModel& m) { print_reproduced(output, m); };
  on.script_done = [&output](const repro::ScriptedProgram& p) { print_script_result(output, p); };
  repro::ReproduceResult result = repro::run_reproduce(request, db, on);
  if (progress && (!request.suite.empty() || request.model.empty())) std::cerr << "\r\x1b[K";
  finish_reproduce(output, result, std::cout);
}

}  // namespace

void add_reproduce_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(kReproduceHelp);
  auto args = std::make_shared<repro::ReproduceRequest>();
  auto flags = std::make_shared<ReproduceFlags>();
  auto* issue = cmd->add_option("ISSUE", args->issue,
                                "OWNER/REPO#N or its URL: the fetched models (or, with --scripts, "
                                "the repro script) of one issue");
  auto* all = cmd->add_flag("--all", args->all,
                            "every issue: scan for artifacts, then re-run each fetched model and "
                            "each PyTorch script, and say why the other issues ran nothing");
  auto* models = cmd->add_flag("--models", flags->models,
                               "with --all: only the fetched models and archives, no scripts");
  auto* model =
      cmd->add_option("--model", args->model, "one ONNX model file")->check(CLI::ExistingFile);
  auto* inputs =
      cmd->add_option("--inputs", args->inputs_dir,
                      "with --model: folder with input_N.pb (and output_N.pb reference outputs)")
          ->check(CLI::ExistingDirectory);
  auto* suite =
      cmd->add_option("--suite", args->suite,
                      "folder of ONNX backend test cases (CASE/model.onnx, CASE/test_data_set_N/); "
                      "prints pass/fail/not_runnable per case and totals (not stored)");
  auto* ort = cmd->add_option("--ort", args->ort_version,
                              "run on this installed onnxruntime-node release instead of the "
                              "pinned one (convfail runtimes install VERSION)");
  add_model_run_options(cmd, args->options);
  add_sandbox_option(cmd, &flags->unsafe_no_sandbox);
  cmd->add_option("--memory-mb", args->memory_mb, "address-space limit of the runner (MiB)")
      ->capture_default_str()
      ->check(CLI::Range(256, 1 << 20));
  cmd->add_option("--dim", args->dims,
                  "NAME=V: value of a symbolic input dimension for generated inputs (default 1)");
  auto* limit =
      cmd->add_option("--limit", args->limit,
                      "stop after N models (ISSUE, --suite), N models then scripts (--all) or "
                      "N scripts (--scripts ISSUE); 0 = all")
          ->capture_default_str()
          ->check(CLI::Range(0, 1 << 30));
  auto* filter =
      cmd->add_option("--filter", args->filter, "--suite: only cases whose name contains TEXT");
  auto* json = cmd->add_flag("--json", flags->json,
                             "print one JSON document: {\"results\": [...], \"totals\": {...}}");
  auto* jsonl = cmd->add_flag("--jsonl", flags->jsonl,
                              "print JSON Lines as results come: one result per line, then "
                              "{\"totals\": {...}}");
  // PyTorch repro scripts (repro/scripts): ISSUE / --all select issues with script artifacts.
  auto* scripts = cmd->add_flag(
      "--scripts", flags->scripts,
      "re-run the PyTorch repro script of ISSUE (with --all: only the scripts, no models)\n"
      "under the harness: torch.onnx.export intercepted, module run eagerly, exported\n"
      "model re-executed and compared with the eager outputs; sandboxed, no network.\n"
      "Verdicts stored with the torch version");
  auto* script_file =
      cmd->add_option("--script-file", flags->script_args.script_file,
                      "with --scripts: one local Python script instead of issues (not stored)")
          ->check(CLI::ExistingFile);
  auto* python =
      cmd->add_option("--python", flags->script_args.run.python,
                      "scripts (--scripts, --all): the interpreter that has torch and onnx")
          ->capture_default_str();
  auto* script_timeout =
      cmd->add_option("--script-timeout", flags->script_args.run.timeout_seconds,
                      "scripts (--scripts, --all): seconds per script (wall clock)")
          ->capture_default_str()
          ->check(CLI::Range(0.001, 86400.0));
  auto* script_memory =
      cmd->add_option("--script-memory-mb", flags->script_memory_mb,
                      "scripts (--scripts, --all): address-space limit of a script (MiB)")
          ->capture_default_str()
          ->check(CLI::Range(512, 1 << 20));
  // One mode: ISSUE, --all, --model or --suite (with --scripts: ISSUE, --all or --script-file).
  issue->excludes(all)->excludes(model)->excludes(suite)->excludes(script_file);
  all->excludes(model)->excludes(suite)->excludes(script_file);
  model->excludes(suite)->excludes(scripts);
  suite->excludes(scripts);
  inputs->needs(model);
  ort->excludes(scripts);
  filter->needs(suite);
  limit->excludes(model);
  json->excludes(jsonl);
  models->needs(all)->excludes(scripts);
  script_file->needs(scripts);
  // The scripts' options: where scripts run (--scripts, or --all without --models).
  for (CLI::Option* o : {python, script_timeout, script_memory})
    o->excludes(model)->excludes(suite)->excludes(models);
  cmd->callback([&ctx, args, flags, python, script_timeout, script_memory] {
    // ISSUE without --scripts runs models only: the scripts' options would be ignored there.
    if (!flags->scripts && !args->all &&
        python->count() + script_timeout->count() + script_memory->count() > 0)
      throw UsageError(
          "--python, --script-timeout and --script-memory-mb are for scripts: add "
          "--scripts, or use --all");
    run_reproduce_command(ctx, *args, *flags);
  });
}

}  // namespace convfail::cli
