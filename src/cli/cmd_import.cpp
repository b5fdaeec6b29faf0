#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/importer.h"

namespace convfail::cli {

void add_import_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Load issue dumps: a JSON array of GitHub REST issue objects, or JSONL (one issue per\n"
      "line, REST or flattened {repo, number, title, ..., comments, timeline}). Re-importing is\n"
      "idempotent; a newer updated_at replaces an older copy. All files are imported in one\n"
      "transaction: on any error nothing is stored and the error names file:line.");
  struct Args {
    std::vector<std::string> files;
    std::string repo;
    bool json = false;
  };
  auto args = std::make_shared<Args>();  // outlives parsing: the callback runs inside parse()
  cmd->add_option("FILE", args->files, "issue dump files (.json or .jsonl)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--repo", args->repo, "OWNER/NAME for objects that do not name their repository");
  cmd->add_flag("--json", args->json, "print the counts as JSON");
  cmd->callback([&ctx, args] {
    const auto& files = args->files;
    ImportOptions options;
    if (!args->repo.empty()) options.default_repo = args->repo;
    ImportCounts c = import_files(ctx.db(), files, options);
    if (args->json) {
      nlohmann::json out = {{"files", files.size()},
                            {"issues", c.total()},
                            {"inserted", c.inserted},
                            {"updated", c.updated},
                            {"unchanged", c.unchanged},
                            {"stale", c.stale},
                            {"pull_requests", c.pull_requests},
                            {"comment_sets_changed", c.comment_sets_changed},
                            {"timelines_changed", c.timelines_changed}};
      std::cout << out.dump(2) << "\n";
      return;
    }
    // The text uses the JSON's key names: "<count> <key>".
    std::cout << "imported " << c.total() << " issues from " << files.size()
              << " files: " << c.inserted << " inserted, " << c.updated << " updated, "
              << c.unchanged << " unchanged";
    if (c.stale) std::cout << ", " << c.stale << " stale (older than stored, ignored)";
    if (c.pull_requests) std::cout << ", " << c.pull_requests << " pull_requests";
    std::cout << "\n";
  });
}

}  // namespace convfail::cli
