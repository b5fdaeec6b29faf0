#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "core/taxonomy.h"
#include "labeling/manual_labels.h"

namespace convfail::cli {

void add_label_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Record manual labels for one issue (scripted labeling). Every change is appended to the\n"
      "label history; nothing is overwritten. Values are taxonomy ids or spreadsheet names\n"
      "(data/taxonomy.json); unknown ones are refused with the list of valid ids.");
  struct Args {
    std::string issue, annotator;
    std::optional<std::string> symptom, cause, subtype, stage, note;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("ISSUE", args->issue, "OWNER/REPO#N or its URL")->required();
  cmd->add_option("--annotator", args->annotator, "who is labeling")->required();
  cmd->add_option("--symptom", args->symptom, "symptom label id");
  cmd->add_option("--cause", args->cause, "cause label id");
  cmd->add_option("--subtype", args->subtype,
                  "cause subtype (must belong to --cause, or to your current cause)");
  cmd->add_option("--stage", args->stage, "converter stage label id");
  cmd->add_option("--note", args->note, "free-text note kept with these labels (at most 64 KB)");
  cmd->callback([&ctx, args] {
    Taxonomy tax = Taxonomy::load(ctx.data_dir);
    IssueRef ref = parse_issue_ref(args->issue);
    Db& db = ctx.db();
    std::int64_t id = require_issue(db, ref);
    labeling::LabelOutcome o = labeling::record_labels(
        db, tax, id, args->annotator,
        {args->symptom, args->cause, args->subtype, args->stage, args->note}, "cli");
    std::cout << ref.repo << "#" << ref.number << ": " << o.written << " label(s) recorded for "
              << args->annotator;
    if (o.unchanged) std::cout << ", " << o.unchanged << " unchanged";
    std::cout << "\n";
  });
}

}  // namespace convfail::cli
