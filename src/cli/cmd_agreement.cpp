#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "core/json_util.h"
#include "labelsets/agreement_report.h"

namespace convfail::cli {

void add_agreement_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Inter-rater agreement of manual annotators on the issues they all labeled, per\n"
      "dimension: n, raw agreement, Cohen's kappa with a 95% confidence interval and the\n"
      "confusion table; with three or more annotators also every pair and Fleiss' kappa.");
  struct Args {
    std::vector<std::string> annotators;
    std::optional<std::string> dimension;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--annotators", args->annotators,
                  "annotators to compare, e.g. R1,R2; hybrid[:ANNOTATOR] compares\n"
                  "the hybrid label source (manual, else confident classifier labels)")
      ->required()
      ->delimiter(',');
  cmd->add_option("--dimension", args->dimension, "only this dimension")
      ->check(CLI::IsMember({"symptom", "cause", "subtype", "stage"}));
  cmd->add_flag("--json", args->json, "print JSON");
  cmd->callback([&ctx, args] {
    labelsets::AgreementReport r =
        labelsets::compute_agreement(ctx.read_db(), args->annotators, args->dimension);
    if (args->json)
      std::cout << json_text(labelsets::agreement_json(r), 2) << "\n";
    else
      std::cout << labelsets::format_agreement(r);
  });
}

}  // namespace convfail::cli
