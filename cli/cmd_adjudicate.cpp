#include <iostream>
#include <memory>

#include "cli/annotation_session.h"
#include "cli/commands.h"
#include "cli/interactive_session.h"
#include "core/taxonomy.h"

namespace convfail::cli {

void add_adjudicate_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Walk the disagreements of two or more annotators (same keys as annotate; each\n"
      "annotator's label is shown with its number) and record the decisions under --as. The\n"
      "`consensus` label source uses the latest adjudication, else the agreed value.");
  struct Args {
    std::vector<std::string> annotators;
    std::string as;
    SessionDisplay display;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--annotators", args->annotators, "annotators to reconcile, e.g. R1,R2")
      ->required()
      ->delimiter(',');
  cmd->add_option("--as", args->as, "name the decisions are recorded under")->required();
  add_session_display_options(cmd, &args->display);
  cmd->callback([&ctx, args] {
    Taxonomy tax = Taxonomy::load(ctx.data_dir);
    Db& db = ctx.db();
    std::string params;
    for (const auto& a : args->annotators) params += (params.empty() ? "" : ",") + a;
    SessionConfig config;
    config.compare = args->annotators;
    OpenedSession opened = open_session(
        db, tax, args->as, "adjudicate", "disagreements", "annotators=" + params, config,
        [&] { return labeling::build_adjudication_queue(db, args->annotators, args->as); });
    run_interactive_session(ctx, tax, opened, config, args->display);
  });
}

}  // namespace convfail::cli
