#include "cli/commands.h"

namespace convfail::cli {

const std::vector<CommandSpec>& command_table() {
  static const std::vector<CommandSpec> kCommands = {
      {"init", "Setup", "create or migrate the database", add_init_command},
      {"crawl", "Collect", "sync issues of a repository from the GitHub API", add_crawl_command},
      {"import", "Collect", "load issue dumps (JSON or JSONL)", add_import_command},
      {"list", "Collect", "list stored issues", add_list_command},
      {"show", "Collect", "print one stored issue with comments and timeline", add_show_command},
      {"search", "Collect", "full-text search over issues and comments", add_search_command},
      {"stats", "Collect", "summarise the store", add_stats_command},
      {"classify", "Classify", "label stored issues with the rules and store the run",
       add_classify_command},
      {"explain", "Classify", "classify one issue and show the evidence", add_explain_command},
      {"eval", "Classify", "compare a classifier run with gold labels", add_eval_command},
      {"train", "Classify", "fit a model on top of the rules from gold labels", add_train_command},
      {"label", "Label", "record manual labels for one issue", add_label_command},
      {"labels", "Label", "manual labels: import, export, history", add_labels_command},
      {"annotate", "Label", "label issues interactively", add_annotate_command},
      {"adjudicate", "Label", "reconcile the disagreements of annotators", add_adjudicate_command},
      {"agreement", "Label", "agreement of annotators or any label sources", add_agreement_command},
      {"artifacts", "Reproduce", "find and fetch the models attached to issues",
       add_artifacts_command},
      {"reproduce", "Reproduce", "re-execute models or repro scripts and record verdicts",
       add_reproduce_command},
      {"runtimes", "Reproduce", "install and list ONNX Runtime releases for --ort and bisect",
       add_runtimes_command},
      {"bisect", "Reproduce", "find the ONNX Runtime releases that changed a model's verdict",
       add_bisect_command},
      {"mutate", "Reproduce", "mutation test of the reproduce harness", add_mutate_command},
      {"test", "Reproduce",
       "converter campaign: generate, convert, compare, group, minimise, match", add_test_command},
      {"report", "Report", "the study's tables from one label source", add_report_command},
      {"opsets", "Report", "ONNX opset evolution, optionally against issue counts",
       add_opsets_command},
      {"serve", "Report", "the web workbench: browse, label, adjudicate, compare, report",
       add_serve_command},
      {"team", "Report", "the people of a team `serve`: per-person tokens and roles",
       add_team_command},
  };
  return kCommands;
}

void add_commands(CLI::App& app, Context& ctx) {
  for (const CommandSpec& c : command_table()) {
    CLI::App* cmd = app.add_subcommand(c.name, c.summary);
    cmd->group(c.group);
    c.add(cmd, ctx);
    // Nested commands (artifacts scan, labels import, ...) inherit the parent's group.
    for (CLI::App* sub : cmd->get_subcommands({})) sub->group("Subcommands");
  }
}

}  // namespace convfail::cli
