// Each subcommand lives in its own cmd_<name>.cpp and registers itself on the app here.
// The CLI layer only parses arguments and calls into the modules.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/context.h"

namespace convfail {

void add_init_command(CLI::App& app, Context& ctx);
void add_import_command(CLI::App& app, Context& ctx);
void add_reproduce_command(CLI::App& app, Context& ctx);
void add_artifacts_command(CLI::App& app, Context& ctx);
void add_mutate_command(CLI::App& app, Context& ctx);

}  // namespace convfail
