#include "cli/repro_options.h"

#include <iostream>

#include "core/error.h"
#include "exec/sandbox.h"

namespace convfail::cli {

void add_model_run_options(CLI::App* cmd, repro::ReproOptions& options) {
  cmd->add_option("--atol", options.tolerance.atol, "absolute tolerance")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--rtol", options.tolerance.rtol, "relative tolerance")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--timeout", options.timeout_seconds, "seconds per model (wall clock)")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));
  cmd->add_option("--max-elements", options.max_elements,
                  "largest input in elements (declared shape or input_N.pb); a model over it is "
                  "not_runnable")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, repro::kMaxMaxElements));
}

void add_sandbox_option(CLI::App* cmd, bool* unsafe) {
  cmd->add_flag("--unsafe-no-sandbox", *unsafe,
                "run models and scripts WITHOUT the bubblewrap sandbox (rlimits only): only for\n"
                "code you trust, or where bwrap cannot create namespaces; stored runs record it");
}

void apply_sandbox_choice(bool unsafe) {
  exec::set_unsandboxed(unsafe);
  if (unsafe) {
    std::cerr << "warning: --unsafe-no-sandbox: untrusted code runs without isolation (rlimits "
                 "only)\n";
    return;
  }
  if (!exec::sandbox_available()) throw UserError(exec::sandbox_refusal());
}

}  // namespace convfail::cli
