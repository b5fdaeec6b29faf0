#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "classifier/engine.h"
#include "classifier/run_store.h"
#include "cli/commands.h"
#include "cli/stored_verdicts.h"
#include "core/error.h"
#include "core/text.h"

namespace convfail::cli {

namespace {

struct ClassifyArgs {
  std::string rules;
  std::vector<std::string> repos;
  bool json = false;
  bool no_model = false;
  std::vector<std::string> model_for;
  bool no_execution = false;
};

const char* const kClassifyHelp =
    "Label every stored issue (or those of one repository) with a symptom, a cause (with\n"
    "subtype) and a stage using the rules in data/rules/*.json, and store the result as one\n"
    "classifier run: labels with confidence (NULL label = abstained; stage abstains as\n"
    "not_distinguishable), the evidence of every fired rule, and extracted facts (error type,\n"
    "operators, opset, framework versions). Stored in one transaction.\n"
    "When `convfail train` has stored a model, each dimension takes the predictor train chose\n"
    "for it by cross-validation (see `train --help`): the rules, the model (its features\n"
    "include the rules' firings) or their blend (the model with the rules' decision as a\n"
    "vote); the confidence is then that predictor's, calibrated on its out-of-fold\n"
    "predictions. The rules' own decision, the model's probabilities and its most weighty\n"
    "features are kept with each label. --model-for overrides the choice: the dimensions named\n"
    "take the model, the others the rules. --no-model uses the rules alone.\n"
    "Execution evidence: an issue whose repro was re-executed (`reproduce`, `reproduce\n"
    "--scripts`) has its latest verdicts used as evidence for symptom and stage: a crash in\n"
    "torch.onnx.export votes for crash; a converted model failing in ONNX Runtime, the checker\n"
    "or parsing, or giving wrong outputs, for wrong_model; the crash's signature can name the\n"
    "stage (unsupported operator: node_conversion, tracing: load_model, a graph pass:\n"
    "optimization, protobuf: export). Each kind has its own weight, calibrated by `train` on\n"
    "the training issues' verdicts (defaults without a model); the rules add it to the\n"
    "label's score, the model and the blend to its log-odds. `explain` shows it; it is stored\n"
    "with the run. --no-execution leaves verdicts out.";

// `classify`: one stored run of the rules (and the trained model), then its summary.
void run_classify(Context& ctx, const ClassifyArgs& a) {
  Taxonomy taxonomy = Taxonomy::load(ctx.data_dir);
  std::string dir = a.rules.empty() ? ctx.data_dir + "/rules" : a.rules;
  classifier::Engine engine(classifier::load_rules(dir, taxonomy), taxonomy);
  std::optional<classifier::TrainedModel> model;
  if (!a.no_model) model = classifier::load_latest_model(ctx.db());
  classifier::ClassifyOptions options;
  if (!a.model_for.empty()) {
    if (!model) throw UserError("--model-for needs a trained model (run train first)");
    std::set<std::string> named;
    for (std::string d : a.model_for) {
      d = trim(d, " \t");
      if (!taxonomy.has_dimension(d))
        throw UsageError("--model-for: unknown dimension \"" + d + "\" (symptom, cause, stage)");
      if (!model->dimension(d))
        throw UserError("--model-for: trained model " + std::to_string(model->id) + " has no " + d +
                        " dimension");
      named.insert(d);
    }
    for (const auto& d : taxonomy.dimensions())
      options.predictors[d.id] =
          named.count(d.id) ? classifier::kPredictorModel : classifier::kPredictorRules;
  }
  classifier::ExecutionVerdicts verdicts;
  if (!a.no_execution) {
    verdicts = stored_verdicts(ctx.db());
    options.verdicts = &verdicts;
  }
  if (model && model->rules_hash != engine.rules().hash)
    std::cerr << "warning: trained model " << model->id << " was fitted with other rules (hash "
              << model->rules_hash << "); train again for the current ones\n";
  bool tty = Context::stderr_is_tty();
  options.model = model ? &*model : nullptr;
  options.progress = [tty](std::int64_t d, std::int64_t n) {
    if (tty && (d % 500 == 0 || d == n))
      std::cerr << "\rclassified " << d << "/" << n << std::flush;
  };
  classifier::RunSummary s = classifier::classify_and_store(ctx.db(), engine, a.repos, options);
  if (tty) std::cerr << "\n";
  if (!s.abandoned_runs.empty()) {
    std::string ids;
    for (std::int64_t id : s.abandoned_runs) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
    std::cerr << "notice: classifier run(s) " << ids
              << " were left unfinished by a classify that died; marked abandoned (report "
                 "--source classifier:N --allow-partial still shows one)\n";
  }
  if (a.json) {
    nlohmann::json out = {{"run_id", s.run_id},
                          {"issues", s.issues},
                          {"rules_hash", s.rules_hash},
                          {"rules", s.rule_count},
                          {"labels", s.counts},
                          {"abstained", s.abstained},
                          {"model_id", s.model_id},
                          {"predictors", s.predictors},
                          {"execution_issues", s.execution_issues},
                          {"moved_by_execution", s.moved_by_execution},
                          {"abandoned_runs", s.abandoned_runs}};
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << "classifier run " << s.run_id << ": " << s.issues << " issue(s), " << s.rule_count
            << " rules (hash " << s.rules_hash << ")"
            << (s.model_id ? ", trained model " + std::to_string(s.model_id) : std::string())
            << "\n";
  for (const auto& [dim, counts] : s.counts) {
    std::cout << "  " << dim << " (" << s.predictors[dim] << "):";
    for (const auto& [label, n] : counts)
      std::cout << " " << (label.empty() ? "abstained" : label) << "=" << n;
    std::cout << "  (abstained " << (s.abstained.count(dim) ? s.abstained.at(dim) : 0) << ")\n";
  }
  if (s.execution_issues) {
    std::cout << "  execution evidence on " << s.execution_issues
              << " issue(s); labels it changed:";
    for (const auto& [dim, n] : s.moved_by_execution) std::cout << " " << dim << "=" << n;
    if (s.moved_by_execution.empty()) std::cout << " none";
    std::cout << "\n";
  }
}

}  // namespace

void add_classify_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(kClassifyHelp);
  auto args = std::make_shared<ClassifyArgs>();
  cmd->add_option("--rules", args->rules, "rules folder (default: DATA_DIR/rules)");
  cmd->add_option("--repo", args->repos, "only issues of OWNER/NAME (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--json", args->json, "print the run summary as JSON");
  auto* no_model =
      cmd->add_flag("--no-model", args->no_model, "ignore trained models: the rules alone");
  cmd->add_option("--model-for", args->model_for,
                  "override train's choice: these dimensions (comma-separated, e.g.\n"
                  "symptom,cause,stage) take the trained model, every other one the rules")
      ->delimiter(',')
      ->excludes(no_model);
  cmd->add_flag("--no-execution", args->no_execution,
                "leave stored repro verdicts out (no execution evidence)");
  cmd->callback([&ctx, args] { run_classify(ctx, *args); });
}

}  // namespace convfail::cli
