#include "cli/repro_options.h"

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
}

}  // namespace convfail::cli
