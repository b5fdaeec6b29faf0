#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/error.h"
#include "repro/repro_command.h"
#include "repro/scripts/script_command.h"

namespace convfail::cli {

void add_reproduce_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "reproduce",
      "Re-execute ONNX models and record verdicts. For each model: parse, onnx checker and strict\n"
      "shape inference (libonnx), then ONNX Runtime (Node.js runner, sandboxed) with graph\n"
      "optimizations disabled and all enabled, on given inputs (input_N.pb) or inputs generated\n"
      "from the graph; outputs are compared with reference outputs (output_N.pb) when given and\n"
      "optimized against unoptimized. Verdicts: crash_reproduced, wrong_output_reproduced,\n"
      "not_reproduced, not_runnable. Issue and --model runs are stored in repro_runs.");
  auto args = std::make_shared<repro::ReproduceRequest>();
  cmd->add_option("ISSUE", args->issue, "OWNER/REPO#N: the fetched models of one issue");
  cmd->add_flag("--all", args->all, "every issue with fetched model artifacts");
  cmd->add_option("--model", args->model, "one ONNX model file")->check(CLI::ExistingFile);
  cmd->add_option("--inputs", args->inputs_dir,
                  "with --model: folder with input_N.pb (and output_N.pb reference outputs)")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--suite", args->suite,
                  "folder of ONNX backend test cases (CASE/model.onnx, CASE/test_data_set_N/); "
                  "prints pass/fail/not_runnable per case and totals (not stored)");
  cmd->add_option("--atol", args->options.tolerance.atol, "absolute tolerance")
      ->capture_default_str();
  cmd->add_option("--rtol", args->options.tolerance.rtol, "relative tolerance")
      ->capture_default_str();
  cmd->add_option("--timeout", args->options.timeout_seconds, "seconds per model (wall clock)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--memory-mb", args->memory_mb, "address-space limit of the runner (MiB)")
      ->capture_default_str()
      ->check(CLI::Range(256, 1 << 20));
  cmd->add_option("--dim", args->dims,
                  "NAME=V: value of a symbolic input dimension for generated inputs (default 1)");
  cmd->add_option("--limit", args->limit, "--suite/--all: stop after N models (0 = all)")
      ->capture_default_str();
  cmd->add_option("--filter", args->filter, "--suite: only cases whose name contains TEXT");
  cmd->add_flag("--json", args->json, "one JSON object per model (JSON lines), then totals");
  // PyTorch repro scripts (repro/scripts): ISSUE / --all select issues with script artifacts.
  struct ScriptFlags {
    bool on = false;
    std::uint64_t memory_mb = 8192;
    repro::ScriptsCommandArgs args;
  };
  auto scripts = std::make_shared<ScriptFlags>();
  cmd->add_flag("--scripts", scripts->on,
                "re-run the PyTorch repro scripts of ISSUE (or of --all issues with script\n"
                "artifacts) under the harness: torch.onnx.export intercepted, module run eagerly,\n"
                "exported model re-executed and compared with the eager outputs; sandboxed, no\n"
                "network. Verdicts stored with the torch version");
  cmd->add_option("--script-file", scripts->args.script_file,
                  "with --scripts: one local Python script instead of issues (not stored)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--python", scripts->args.run.python,
                  "with --scripts: the interpreter that has torch and onnx")
      ->capture_default_str();
  cmd->add_option("--script-timeout", scripts->args.run.timeout_seconds,
                  "with --scripts: seconds per script (wall clock)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--script-memory-mb", scripts->memory_mb,
                  "with --scripts: address-space limit of the script (MiB)")
      ->capture_default_str()
      ->check(CLI::Range(512, 1 << 20));
  cmd->callback([&ctx, args, scripts] {
    if (scripts->on) {
      if (!args->model.empty() || !args->suite.empty() || !args->inputs_dir.empty())
        throw UsageError("--scripts does not go with --model, --inputs or --suite");
      repro::ScriptsCommandArgs s = scripts->args;
      s.run.memory_bytes = scripts->memory_mb << 20;
      s.all = args->all;
      if (!args->issue.empty()) s.issues = {args->issue};
      s.json = args->json;
      s.progress = Context::stderr_is_tty();
      s.repro = args->options;
      s.runner_memory_mb = args->memory_mb;
      repro::run_scripts_command(s.script_file.empty() ? &ctx.db() : nullptr, s, std::cout,
                                 std::cerr);
      return;
    }
    if (!scripts->args.script_file.empty()) throw UsageError("--script-file goes with --scripts");
    int modes = !args->issue.empty() + args->all + !args->model.empty() + !args->suite.empty();
    if (modes != 1)
      throw UsageError("reproduce needs exactly one of OWNER/REPO#N, --all, --model, --suite");
    if (!args->inputs_dir.empty() && args->model.empty())
      throw UsageError("--inputs goes with --model");
    args->progress = Context::stderr_is_tty();
    repro::run_reproduce(*args, args->suite.empty() ? &ctx.db() : nullptr, std::cout);
  });
}

}  // namespace convfail::cli
