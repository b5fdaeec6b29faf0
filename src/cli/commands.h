// Each subcommand lives in its own cmd_<name>.cpp and registers itself on the app here.
// The CLI layer only parses arguments and calls into the modules.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/context.h"

namespace convfail::cli {

void add_init_command(CLI::App& app, Context& ctx);
void add_import_command(CLI::App& app, Context& ctx);
void add_reproduce_command(CLI::App& app, Context& ctx);
void add_artifacts_command(CLI::App& app, Context& ctx);
void add_mutate_command(CLI::App& app, Context& ctx);
void add_list_command(CLI::App& app, Context& ctx);
void add_show_command(CLI::App& app, Context& ctx);
void add_search_command(CLI::App& app, Context& ctx);
void add_stats_command(CLI::App& app, Context& ctx);
void add_report_command(CLI::App& app, Context& ctx);
void add_opsets_command(CLI::App& app, Context& ctx);
void add_label_command(CLI::App& app, Context& ctx);
void add_labels_command(CLI::App& app, Context& ctx);
void add_agreement_command(CLI::App& app, Context& ctx);
void add_annotate_command(CLI::App& app, Context& ctx);
void add_adjudicate_command(CLI::App& app, Context& ctx);
void add_crawl_command(CLI::App& app, Context& ctx);
void add_classify_command(CLI::App& app, Context& ctx);
void add_explain_command(CLI::App& app, Context& ctx);
void add_eval_command(CLI::App& app, Context& ctx);

}  // namespace convfail::cli
