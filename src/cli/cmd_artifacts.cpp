#include "cli/commands.h"

namespace convfail {

void add_artifacts_command(CLI::App& app, Context& ctx) {
  (void)ctx;
  app.add_subcommand("artifacts", "Find and fetch models attached to issues (scan, fetch)")
      ->require_subcommand(1);
}

}  // namespace convfail
