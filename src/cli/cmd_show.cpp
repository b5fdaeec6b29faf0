#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "core/error.h"
#include "core/issue_format.h"
#include "core/issue_queries.h"
#include "core/text.h"
#include "repro/result_output.h"
#include "repro/verdict_store.h"

namespace convfail::cli {

void add_show_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Print one stored issue: title, state, author, dates, labels, URL, body, then its\n"
      "comments (author and association) and timeline events, then its repro runs\n"
      "(`convfail reproduce`): verdict, step and signature, and under each the error message\n"
      "and, for scripts, the first lines of the traceback (--json: all of them, in \"repro\").");
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
    std::vector<repro::StoredReproRun> runs = repro::issue_repro_runs(ctx.read_db(), d->summary.id);
    if (args->json) {
      // The same rows as the web's issue JSON (web/api.cpp issue_json; tests/e2e/web_api.sh).
      auto opt = [](const std::optional<std::string>& v) { return v ? Json(*v) : Json(); };
      Json j = to_json(*d);
      j["repro"] = Json::array();
      for (const auto& r : runs)
        j["repro"].push_back({{"id", r.id},
                              {"verdict", r.verdict},
                              {"step", opt(r.step)},
                              {"signature", opt(r.signature)},
                              {"reason", opt(r.reason)},
                              {"output_name", opt(r.output_name)},
                              {"max_abs_error", r.max_abs_error ? Json(*r.max_abs_error) : Json()},
                              {"started_at", r.started_at},
                              {"message", opt(r.message)},
                              {"traceback", opt(r.traceback)}});
      std::cout << json_text(j, 2) << "\n";
      return;
    }
    std::cout << format_issue_detail(*d);
    if (runs.empty()) return;
    std::cout << "\nRepro runs (" << runs.size() << "):\n";
    for (const auto& r : runs) {
      std::string line = r.started_at + "  " + (r.script ? "script" : "model") + "  " + r.verdict +
                         (r.step ? " [" + *r.step + "]" : "");
      for (const auto* part : {&r.reason, &r.signature})
        if (*part) line += "  " + **part;
      std::cout << "  " << terminal_safe(line) << "\n";
      for (const std::string& m :
           repro::message_lines(r.message.value_or(""), r.traceback.value_or("")))
        std::cout << "      " << m << "\n";
    }
  });
}

}  // namespace convfail::cli
