// Options that `reproduce` and `mutate` share: how a model run is compared and bounded.
#pragma once

#include <CLI/CLI.hpp>

#include "repro/reproduce.h"

namespace convfail::cli {

// --atol, --rtol, --timeout (seconds per model) and --max-elements, range-checked, into `options`.
void add_model_run_options(CLI::App* cmd, repro::ReproOptions& options);

// --unsafe-no-sandbox into `*unsafe`. Call apply_sandbox_choice(*unsafe) before running anything.
void add_sandbox_option(CLI::App* cmd, bool* unsafe);

// With `unsafe`: every child runs without the sandbox (one warning line on stderr). Without it:
// throws UserError "sandbox unavailable: <reason>; pass --unsafe-no-sandbox ..." when bubblewrap
// cannot create its namespaces here.
void apply_sandbox_choice(bool unsafe);

}  // namespace convfail::cli
