#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/importer.h"
#include "core/text.h"

namespace convfail::cli {

void add_import_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Load issue dumps: a JSON array of GitHub REST issue objects, or JSONL (one issue per\n"
      "line, REST or flattened {repo, number, title, ..., comments, timeline}). Re-importing is\n"
      "idempotent; a newer updated_at replaces an older copy (times compare as instants and are\n"
      "stored in UTC). Every file is checked first: on any error nothing is stored and the\n"
      "error names FILE:LINE: FIELD. Then the issues are written in short transactions (about\n"
      "100 ms each), so `serve` and other jobs can write in between.\n"
      "\n"
      "Accepted objects (other fields are kept unchecked; any listed field may be null):\n"
      "  number      integer 1..2^53 (required)\n"
      "  repo        OWNER/NAME (owner: letters, digits, '-', max 39; name: letters, digits,\n"
      "              '-', '_', '.', max 100), else from repository_url/html_url or --repo\n"
      "  title, body, state, author, author_association, html_url: strings; user: {login}\n"
      "  labels      array of strings or of {\"name\": string}\n"
      "  comments    a count, or an array of {body, author or user.login, created_at, ...}\n"
      "  timeline    array of event objects\n"
      "  created_at, updated_at, closed_at: ISO-8601 dates or times, e.g. 2024-05-01T12:00:00Z\n"
      "Strings must be valid UTF-8 without NUL (\\u0000) and at most --max-field-mb; JSON may\n"
      "nest at most 64 levels. A leading UTF-8 BOM is ignored.");
  struct Args {
    std::vector<std::string> files;
    std::string repo;
    bool json = false;
    std::int64_t max_field_mb = 1;
    bool truncate = false;
  };
  auto args = std::make_shared<Args>();  // outlives parsing: the callback runs inside parse()
  cmd->add_option("FILE", args->files, "issue dump files (.json or .jsonl)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--repo", args->repo, "OWNER/NAME for objects that do not name their repository");
  cmd->add_option("--max-field-mb", args->max_field_mb,
                  "largest body or other string accepted, in MB (GitHub allows 65,536 characters)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1024}))
      ->capture_default_str();
  cmd->add_flag("--truncate-long-fields", args->truncate,
                "store the first --max-field-mb of a longer issue or comment body, flagged\n"
                "body_truncated in the database, instead of refusing the file");
  cmd->add_flag("--json", args->json, "print the counts as JSON");
  cmd->callback([&ctx, args] {
    const auto& files = args->files;
    ImportOptions options;
    if (!args->repo.empty()) options.default_repo = args->repo;
    options.limits.max_field_bytes = static_cast<std::size_t>(args->max_field_mb) << 20;
    options.limits.truncate = args->truncate;
    ImportCounts c = import_files(ctx.create_db(), files, options);
    if (args->json) {
      nlohmann::json out = {{"files", files.size()},
                            {"issues", c.total()},
                            {"inserted", c.inserted},
                            {"updated", c.updated},
                            {"unchanged", c.unchanged},
                            {"stale", c.stale},
                            {"pull_requests", c.pull_requests},
                            {"comment_sets_changed", c.comment_sets_changed},
                            {"timelines_changed", c.timelines_changed},
                            {"transactions", c.transactions},
                            {"largest_transaction", c.largest_transaction}};
      std::cout << out.dump(2) << "\n";
      return;
    }
    // The text uses the JSON's key names: "<count> <key>".
    std::cout << "imported " << count_noun(c.total(), "issue") << " from "
              << count_noun(static_cast<std::int64_t>(files.size()), "file") << ": " << c.inserted
              << " inserted, " << c.updated << " updated, " << c.unchanged << " unchanged";
    if (c.stale) std::cout << ", " << c.stale << " stale (older than stored, ignored)";
    if (c.pull_requests) std::cout << ", " << c.pull_requests << " pull_requests";
    std::cout << "\n";
  });
}

}  // namespace convfail::cli
