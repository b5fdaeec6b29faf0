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
  cmd->add_option("--max-elements", options.max_elements,
                  "largest input in elements (declared shape or input_N.pb); a model over it is "
                  "not_runnable")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, repro::kMaxMaxElements));
}

}  // namespace convfail::cli
