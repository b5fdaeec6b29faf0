// Options that `reproduce` and `mutate` share: how a model run is compared and bounded.
#pragma once

#include <CLI/CLI.hpp>

#include "repro/reproduce.h"

namespace convfail::cli {

// --atol, --rtol, --timeout (seconds per model) and --max-elements, range-checked, into `options`.
void add_model_run_options(CLI::App* cmd, repro::ReproOptions& options);

}  // namespace convfail::cli
