#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "core/error.h"
#include "core/issue_format.h"
#include "core/issue_queries.h"

namespace convfail::cli {

void add_show_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "show",
      "Print one stored issue: title, state, author, dates, labels, URL, body, then its\n"
      "comments (author and association) and timeline events.");
  struct Args {
    std::string ref;
    bool json = false;
  };
  auto args = std::make_shared<Args>();  // outlives parsing: the callback runs inside parse()
  cmd->add_option("ISSUE", args->ref, "OWNER/REPO#NUMBER, e.g. pytorch/pytorch#49403 (or its URL)")
      ->required();
  cmd->add_flag("--json", args->json, "print the issue, comments and timeline as one JSON object");
  cmd->callback([&ctx, args] {
    IssueRef ref = parse_issue_ref(args->ref);  // UsageError (exit 2) when it does not parse
    std::optional<IssueDetail> d = get_issue(ctx.db(), ref);
    if (!d)
      throw UserError("no issue " + ref.repo + "#" + std::to_string(ref.number) + " in " +
                      ctx.db_path);
    if (args->json) {
      std::cout << to_json(*d).dump(2) << "\n";
      return;
    }
    std::cout << format_issue_detail(*d);
  });
}

}  // namespace convfail::cli
