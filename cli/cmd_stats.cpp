#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/issue_stats.h"
#include "core/taxonomy.h"

namespace convfail::cli {

void add_stats_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Summarise the store: issues per repository (with its converter), per state, top\n"
      "labels, issues linked to a fix, comments. Pull requests are counted apart.");
  struct Args {
    int top = 10;
    bool json = false;
  };
  auto args = std::make_shared<Args>();  // outlives parsing: the callback runs inside parse()
  cmd->add_option("--top", args->top, "how many labels to list")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  cmd->add_flag("--json", args->json,
                "print an object: repositories, issues, comments, ..., per_repository");
  cmd->callback([&ctx, args] {
    Taxonomy taxonomy = Taxonomy::load(ctx.data_dir);
    IssueStats s = compute_stats(ctx.read_db(), args->top, [&taxonomy](const std::string& repo) {
      return taxonomy.converter_for_repo(repo);
    });
    if (args->json) {
      std::cout << to_json(s).dump(2) << "\n";
      return;
    }
    std::cout << format_stats(s);
  });
}

}  // namespace convfail::cli
