// Every subcommand lives in its own cmd_<name>.cpp; kCommands (commands.cpp) is the one list of
// them, in workflow order, with the group and the one-line summary `convfail --help` shows.
// An add function fills in its subcommand: options, the detail text (CLI11 footer, shown by
// `convfail CMD --help`) and the callback. The CLI layer only parses arguments and calls into
// the modules.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/context.h"

namespace convfail::cli {

using AddCommandFn = void (*)(CLI::App* cmd, Context& ctx);

struct CommandSpec {
  const char* name;
  const char* group;    // Setup, Collect, Classify, Label, Reproduce, Report
  const char* summary;  // one line in `convfail --help`
  AddCommandFn add;
};

// The commands in the order `convfail --help` lists them.
const std::vector<CommandSpec>& command_table();

// Registers every command of command_table() on the app.
void add_commands(CLI::App& app, Context& ctx);

void add_init_command(CLI::App* cmd, Context& ctx);
void add_crawl_command(CLI::App* cmd, Context& ctx);
void add_import_command(CLI::App* cmd, Context& ctx);
void add_list_command(CLI::App* cmd, Context& ctx);
void add_show_command(CLI::App* cmd, Context& ctx);
void add_search_command(CLI::App* cmd, Context& ctx);
void add_stats_command(CLI::App* cmd, Context& ctx);
void add_classify_command(CLI::App* cmd, Context& ctx);
void add_explain_command(CLI::App* cmd, Context& ctx);
void add_eval_command(CLI::App* cmd, Context& ctx);
void add_train_command(CLI::App* cmd, Context& ctx);
void add_label_command(CLI::App* cmd, Context& ctx);
void add_labels_command(CLI::App* cmd, Context& ctx);
void add_annotate_command(CLI::App* cmd, Context& ctx);
void add_adjudicate_command(CLI::App* cmd, Context& ctx);
void add_agreement_command(CLI::App* cmd, Context& ctx);
void add_artifacts_command(CLI::App* cmd, Context& ctx);
void add_reproduce_command(CLI::App* cmd, Context& ctx);
void add_runtimes_command(CLI::App* cmd, Context& ctx);
void add_bisect_command(CLI::App* cmd, Context& ctx);
void add_mutate_command(CLI::App* cmd, Context& ctx);
void add_test_command(CLI::App* cmd, Context& ctx);
void add_report_command(CLI::App* cmd, Context& ctx);
void add_opsets_command(CLI::App* cmd, Context& ctx);
void add_serve_command(CLI::App* cmd, Context& ctx);
void add_team_command(CLI::App* cmd, Context& ctx);

}  // namespace convfail::cli
