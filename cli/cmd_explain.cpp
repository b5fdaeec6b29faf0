#include <iostream>
#include <memory>

#include "classifier/engine.h"
#include "classifier/explain.h"
#include "classifier/model.h"
#include "cli/commands.h"
#include "cli/stored_verdicts.h"
#include "core/error.h"
#include "core/issue_ref.h"

namespace convfail::cli {

void add_explain_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Classify one stored issue with the current rules and show why: each dimension's label,\n"
      "confidence and score table, and the evidence (rule, field, byte span) with the matched\n"
      "text highlighted in context (colour on a terminal, >>text<< on a pipe), then the\n"
      "extracted facts. --json prints the same as one JSON object.\n"
      "The issue's stored repro verdicts (`reproduce`, `reproduce --scripts`) are shown as\n"
      "execution evidence under symptom and stage (\"confirmed by re-execution: crash in ONNX\n"
      "Runtime, signature ...\") with their weight; then, with a trained model or execution\n"
      "evidence, what `classify` decides (\"classify: LABEL by rules|model|blend\") and, when\n"
      "the evidence changed it, what the text alone gives. --no-model: the rules alone;\n"
      "--no-execution: without the verdicts.");
  struct Args {
    std::string issue;
    std::string rules;
    bool json = false;
    bool no_model = false;
    bool no_execution = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("ISSUE", args->issue, "OWNER/REPO#N or its URL")->required();
  cmd->add_option("--rules", args->rules, "rules folder (default: DATA_DIR/rules)");
  cmd->add_flag("--json", args->json, "print the explanation as one JSON object");
  cmd->add_flag("--no-model", args->no_model, "ignore trained models: the rules alone");
  cmd->add_flag("--no-execution", args->no_execution,
                "leave stored repro verdicts out (no execution evidence)");
  cmd->callback([&ctx, args] {
    IssueRef ref = parse_issue_ref(args->issue);
    Taxonomy taxonomy = Taxonomy::load(ctx.data_dir);
    std::string dir = args->rules.empty() ? ctx.data_dir + "/rules" : args->rules;
    classifier::Engine engine(classifier::load_rules(dir, taxonomy), taxonomy);
    auto issue = classifier::load_issue_text(ctx.read_db(), ref.repo, ref.number);
    if (!issue)
      throw UserError("issue " + to_string(ref) +
                      " is not in the store (import or crawl it first)");
    std::optional<classifier::TrainedModel> model;
    if (!args->no_model) model = classifier::load_latest_model(ctx.read_db());
    classifier::ExplainContext context;
    context.model = model ? &*model : nullptr;
    if (!args->no_execution) context.verdicts = stored_verdicts(ctx.read_db(), issue->issue_id);
    if (args->json)
      std::cout << classifier::explain_json(engine, *issue, context).dump(2) << "\n";
    else
      std::cout << classifier::explain_issue(engine, *issue, Context::stdout_is_tty(), context);
  });
}

}  // namespace convfail::cli
