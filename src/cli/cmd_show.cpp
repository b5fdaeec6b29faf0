#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "core/error.h"
#include "core/issue_format.h"
#include "core/issue_queries.h"

namespace convfail::cli {

void add_show_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Print one stored issue: title, state, author, dates, labels, URL, body, then its\n"
      "comments (author and association) and timeline events.");
  struct Args {
    std::string ref;
    bool json = false;
  };
  auto args = std::make_shared<Args>();  // outlives parsing: the callback runs inside parse()
  cmd->add_option("ISSUE", args->ref, "OWNER/REPO#N or its URL, e.g. pytorch/pytorch#49403")
      ->required();
  cmd->add_flag("--json", args->json, "print the issue, comments and timeline as one JSON object");
  cmd->callback([&ctx, args] {
    IssueRef ref = parse_issue_ref(args->ref);  // UsageError (exit 2) when it does not parse
    std::optional<IssueDetail> d = get_issue(ctx.read_db(), ref);
    if (!d)
      throw UserError("issue " + to_string(ref) +
                      " is not in the store (import or crawl it first)");
    if (args->json) {
      std::cout << json_text(to_json(*d), 2) << "\n";
      return;
    }
    std::cout << format_issue_detail(*d);
  });
}

}  // namespace convfail::cli
