#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "core/json_util.h"
#include "labelsets/agreement_report.h"

namespace convfail::cli {

void add_agreement_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Agreement of label sources (annotators, or any source: classifier[:RUN],\n"
      "consensus, hybrid[:ANNOTATOR]) on the issues they all labeled, per dimension: n, raw\n"
      "agreement, Cohen's kappa with a 95% confidence interval and the confusion table; with\n"
      "three or more sources also every pair and Fleiss' kappa. The web's comparison page\n"
      "shows the same figures.");
  struct Args {
    std::vector<std::string> annotators;
    std::optional<std::string> dimension;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--annotators", args->annotators,
                  "label sources to compare, e.g. R1,R2 or classifier,R1; also\n"
                  "classifier:RUN, consensus and hybrid[:ANNOTATOR] (manual, else\n"
                  "confident classifier labels)")
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
