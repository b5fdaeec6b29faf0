#include <iostream>
#include <memory>

#include "classifier/annotation_session.h"
#include "classifier/taxonomy.h"
#include "cli/commands.h"

namespace convfail {

void run_interactive_session(Context& ctx, const Taxonomy& tax, const OpenedSession& opened,
                             SessionConfig config, bool plain);

void add_adjudicate_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "adjudicate",
      "Walk the disagreements of two or more annotators (same keys as annotate; each\n"
      "annotator's label is shown with its number) and record the decisions under --as. The\n"
      "`consensus` label source uses the latest adjudication, else the agreed value.");
  struct Args {
    std::vector<std::string> annotators;
    std::string as;
    bool plain = false;
    int page_lines = 20;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--annotators", args->annotators, "annotators to reconcile, e.g. R1,R2")
      ->required()
      ->delimiter(',');
  cmd->add_option("--as", args->as, "name the decisions are recorded under")->required();
  cmd->add_option("--page-lines", args->page_lines, "lines of issue text per page")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--plain", args->plain, "line mode without colours even on a terminal");
  cmd->callback([&ctx, args] {
    Taxonomy tax = Taxonomy::load(ctx.data_dir);
    Db& db = ctx.db();
    std::string params;
    for (const auto& a : args->annotators) params += (params.empty() ? "" : ",") + a;
    SessionConfig config;
    config.page_lines = args->page_lines;
    config.compare = args->annotators;
    OpenedSession opened = open_session(
        db, tax, args->as, "adjudicate", "disagreements", "annotators=" + params, config,
        [&] { return build_adjudication_queue(db, args->annotators, args->as); });
    run_interactive_session(ctx, tax, opened, config, args->plain);
  });
}

}  // namespace convfail
