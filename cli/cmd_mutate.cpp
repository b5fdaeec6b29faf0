#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/repro_options.h"
#include "core/error.h"
#include "repro/mutate.h"
#include "repro/verdicts.h"

namespace convfail::cli {

void add_mutate_command(CLI::App* cmd, Context& ctx) {
  (void)ctx;
  cmd->footer(
      "Mutation test of the reproduce harness: every suite case that passes is corrupted (swap\n"
      "the inputs of a non-commutative op, change an axis or alpha attribute, drop a node) and\n"
      "re-run against its reference outputs; a mutant is killed when it comes out\n"
      "wrong_output_reproduced or crash_reproduced. Exit 1 when the kill rate is below "
      "--min-rate.");
  struct Args {
    std::string suite;
    repro::ReproOptions options;
    int limit = 0;
    std::string filter;
    double min_rate = 0.95;
    bool json = false;
    bool unsafe_no_sandbox = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--suite", args->suite, "folder of ONNX backend test cases")
      ->required()
      ->check(CLI::ExistingDirectory);
  add_model_run_options(cmd, args->options);
  add_sandbox_option(cmd, &args->unsafe_no_sandbox);
  cmd->add_option("--limit", args->limit, "stop after N cases (0 = all)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1 << 30));
  cmd->add_option("--filter", args->filter, "only cases whose name contains TEXT");
  // Above 1 is allowed: it makes the run fail on purpose (tests/e2e/repro_mutation.sh).
  cmd->add_option("--min-rate", args->min_rate, "required kill rate (0-1)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 2.0));
  cmd->add_flag("--json", args->json, "print the summary (and survivors) as JSON");
  cmd->callback([args] {
    apply_sandbox_choice(args->unsafe_no_sandbox);
    exec::RunnerOptions ro;
    ro.model_roots = {args->suite};  // one warm runner for all cases (mutants: one more folder)
    exec::OrtRunner runner(ro);
    std::string why;
    if (!runner.version(&why)) throw UserError(why);
    auto s = repro::run_mutation_test(runner, args->suite, args->options, args->limit, args->filter,
                                      Context::stderr_is_tty());
    nlohmann::json survivors = nlohmann::json::array();
    for (const auto& o : s.outcomes)
      if (!o.killed())
        survivors.push_back({{"case", o.case_name},
                             {"op", o.op},
                             {"mutation", o.description},
                             {"verdict", o.verdict.verdict},
                             {"reason", o.verdict.reason}});
    if (args->json) {
      std::cout << nlohmann::json{{"cases_passing", s.cases_passing},
                                  {"mutants", s.mutants},
                                  {"killed", s.killed},
                                  {repro::kCrashReproduced, s.crash},
                                  {repro::kWrongOutputReproduced, s.wrong_output},
                                  {"survived", s.survived},
                                  {repro::kNotRunnable, s.not_runnable},
                                  {"kill_rate", s.kill_rate()},
                                  {"survivors", survivors}}
                       .dump(2)
                << "\n";
    } else {
      std::map<std::string, std::pair<int, int>> per_op;  // killed, total
      for (const auto& o : s.outcomes) {
        auto& p = per_op[o.op];
        p.first += o.killed();
        ++p.second;
      }
      std::printf(
          "%d passing cases, %d mutants: %d killed (%d crash, %d wrong output), %d survived, "
          "%d not runnable; kill rate %.1f%%\n",
          s.cases_passing, s.mutants, s.killed, s.crash, s.wrong_output, s.survived, s.not_runnable,
          100 * s.kill_rate());
      for (const auto& [op, p] : per_op)
        std::printf("  %-13s %d/%d killed\n", op.c_str(), p.first, p.second);
      for (const auto& sv : survivors)
        std::printf("  survived: %s  %s\n", sv["case"].get<std::string>().c_str(),
                    sv["mutation"].get<std::string>().c_str());
    }
    if (s.kill_rate() < args->min_rate)
      throw UserError("kill rate below " + std::to_string(args->min_rate));
  });
}

}  // namespace convfail::cli
