#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/error.h"
#include "repro/repro_command.h"

namespace convfail {

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
  cmd->callback([&ctx, args] {
    int modes = !args->issue.empty() + args->all + !args->model.empty() + !args->suite.empty();
    if (modes != 1)
      throw UsageError("reproduce needs exactly one of OWNER/REPO#N, --all, --model, --suite");
    if (!args->inputs_dir.empty() && args->model.empty())
      throw UsageError("--inputs goes with --model");
    args->progress = Context::stderr_is_tty();
    repro::run_reproduce(*args, args->suite.empty() ? &ctx.db() : nullptr, std::cout);
  });
}

}  // namespace convfail
