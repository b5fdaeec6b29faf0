#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/issue_format.h"
#include "core/issue_queries.h"

namespace convfail::cli {

void add_list_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "List stored issues, newest first. Pull requests are hidden unless --include-prs.\n"
      "Text output: one line per issue (repo#number, state, created, 'fix' when linked to a fix,\n"
      "labels, title).");
  struct Args {
    std::vector<std::string> repos;
    std::string state = "all";
    std::vector<std::string> labels;
    std::int64_t limit = 0;
    bool fixed = false;
    bool include_prs = false;
    bool json = false;
  };
  auto args = std::make_shared<Args>();  // outlives parsing: the callback runs inside parse()
  cmd->add_option("--repo", args->repos, "only issues of OWNER/NAME (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--state", args->state, "open, closed or all")
      ->check(CLI::IsMember({"open", "closed", "all"}))
      ->capture_default_str();
  cmd->add_option("--label", args->labels,
                  "only issues with this label (repeatable: all must be present)")
      ->allow_extra_args(false);
  cmd->add_option("--limit", args->limit, "at most N issues (0: all)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40))
      ->capture_default_str();
  cmd->add_flag("--fixed", args->fixed, "only issues linked to a fix (closing commit or PR)");
  cmd->add_flag("--include-prs", args->include_prs, "also list pull requests");
  cmd->add_flag("--json", args->json, "print a JSON array of issue objects");
  cmd->callback([&ctx, args] {
    IssueFilter f;
    f.repos = args->repos;
    if (args->state != "all") f.state = args->state;
    f.labels = args->labels;
    f.limit = args->limit;
    f.fixed_only = args->fixed;
    f.include_pull_requests = args->include_prs;
    std::vector<IssueSummary> issues = list_issues(ctx.read_db(), f);
    if (args->json) {
      Json out = Json::array();
      for (const IssueSummary& s : issues) out.push_back(to_json(s));
      std::cout << json_text(out, 2) << "\n";
      return;
    }
    std::cout << format_issue_list(issues);
    if (Context::stderr_is_tty()) std::cerr << issues.size() << " issue(s)\n";
  });
}

}  // namespace convfail::cli
