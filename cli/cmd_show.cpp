#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/issue_format.h"
#include "cli/result_output.h"
#include "core/error.h"
#include "core/issue_queries.h"
#include "core/taxonomy.h"
#include "core/text.h"
#include "repro/verdict_store.h"
#include "views/dossier.h"

namespace convfail::cli {

void add_show_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Print one stored issue: title, state, author, dates, labels, URL, body, then its\n"
      "comments (author and association) and timeline events, then its repro runs\n"
      "(`convfail reproduce`): verdict, step and signature, and under each the error message\n"
      "and, for scripts, the first lines of the traceback.\n"
      "--json prints the issue's dossier, the same JSON as the web's issue page\n"
      "(GET /api/issues/OWNER/REPO/N?blind=0): the issue, comments and timeline, converter,\n"
      "the latest classifier run's labels, evidence and facts, the evidence highlights,\n"
      "every annotator's label history and current labels, every repro run (\"repro\", with\n"
      "message and traceback) and the latest verdict per program re-run (\"verdicts\").");
  struct Args {
    std::string ref;
    bool json = false;
  };
  auto args = std::make_shared<Args>();  // outlives parsing: the callback runs inside parse()
  cmd->add_option("ISSUE", args->ref, "OWNER/REPO#N or its URL, e.g. pytorch/pytorch#49403")
      ->required();
  cmd->add_flag("--json", args->json, "print the issue's dossier as one JSON object (see below)");
  cmd->callback([&ctx, args] {
    IssueRef ref = parse_issue_ref(args->ref);  // UsageError (exit 2) when it does not parse
    Taxonomy tax = Taxonomy::load(ctx.data_dir);
    std::optional<views::IssueDossier> dossier = views::build_dossier(ctx.read_db(), tax, ref);
    if (!dossier)
      throw UserError("issue " + to_string(ref) +
                      " is not in the store (import or crawl it first)");
    if (args->json) {  // the web's issue JSON (tests/e2e/web_dossier.sh checks they are equal)
      std::cout << json_text(views::dossier_json(*dossier), 2) << "\n";
      return;
    }
    const IssueDetail* d = &dossier->issue;
    const std::vector<repro::StoredReproRun>& runs = dossier->repro;
    std::cout << format_issue_detail(*d);
    if (runs.empty()) return;
    std::cout << "\nRepro runs (" << runs.size() << "):\n";
    for (const auto& r : runs) {
      std::string line = r.started_at + "  " + (r.script ? "script" : "model") + "  " + r.verdict +
                         (r.step ? " [" + *r.step + "]" : "");
      for (const auto* part : {&r.reason, &r.signature})
        if (*part) line += "  " + **part;
      std::cout << "  " << terminal_safe(line) << "\n";
      for (const std::string& m : message_lines(r.message.value_or(""), r.traceback.value_or("")))
        std::cout << "      " << m << "\n";
    }
  });
}

}  // namespace convfail::cli
