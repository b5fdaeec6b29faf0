#include <iostream>

#include "cli/commands.h"
#include "core/migrations.h"

namespace convfail::cli {

void add_init_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Create the database, or migrate it to this version's schema. Commands that write\n"
      "(import, crawl, classify, label, ...) also migrate on open (import, labels import,\n"
      "crawl, test run and reproduce --model create it; the others need an existing file);\n"
      "commands that only read (list, show, search, stats, report, explain, eval, agreement,\n"
      "labels export/history) open the database read-only, never change it, and ask for\n"
      "`convfail init` when its schema is older than this convfail.");
  cmd->callback([&ctx] {
    Db db(ctx.db_path);
    int before = db.user_version();
    int applied = migrate(db);
    std::cout << ctx.db_path << ": schema version " << db.user_version();
    if (applied) std::cout << " (migrated from " << before << ", " << applied << " migration(s))";
    std::cout << "\n";
  });
}

}  // namespace convfail::cli
