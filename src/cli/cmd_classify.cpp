#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "classifier/engine.h"
#include "classifier/run_store.h"
#include "cli/commands.h"

namespace convfail::cli {

void add_classify_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Label every stored issue (or those of one repository) with a symptom, a cause (with\n"
      "subtype) and a stage using the rules in data/rules/*.json, and store the result as one\n"
      "classifier run: labels with confidence (NULL label = abstained; stage abstains as\n"
      "not_distinguishable), the evidence of every fired rule, and extracted facts (error type,\n"
      "operators, opset, framework versions). Stored in one transaction.\n"
      "When `convfail train` has stored a model, the latest one decides each dimension it was\n"
      "trained on (its features include the rules' firings); the rules' own decision, the\n"
      "model's probabilities and its most weighty features are kept with each label.\n"
      "--no-model uses the rules alone.");
  struct Args {
    std::string rules;
    std::vector<std::string> repos;
    bool json = false;
    bool no_model = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--rules", args->rules, "rules folder (default: DATA_DIR/rules)");
  cmd->add_option("--repo", args->repos, "only issues of OWNER/NAME (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--json", args->json, "print the run summary as JSON");
  cmd->add_flag("--no-model", args->no_model, "ignore trained models: the rules alone");
  cmd->callback([&ctx, args] {
    Taxonomy taxonomy = Taxonomy::load(ctx.data_dir);
    std::string dir = args->rules.empty() ? ctx.data_dir + "/rules" : args->rules;
    classifier::Engine engine(classifier::load_rules(dir, taxonomy), taxonomy);
    std::optional<classifier::TrainedModel> model;
    if (!args->no_model) model = classifier::load_latest_model(ctx.db());
    if (model && model->rules_hash != engine.rules().hash)
      std::cerr << "warning: trained model " << model->id << " was fitted with other rules (hash "
                << model->rules_hash << "); train again for the current ones\n";
    bool tty = Context::stderr_is_tty();
    classifier::RunSummary s = classifier::classify_and_store(
        ctx.db(), engine, args->repos,
        [tty](std::int64_t d, std::int64_t n) {
          if (tty && (d % 500 == 0 || d == n))
            std::cerr << "\rclassified " << d << "/" << n << std::flush;
        },
        model ? &*model : nullptr);
    if (tty) std::cerr << "\n";
    if (args->json) {
      nlohmann::json out = {{"run_id", s.run_id},         {"issues", s.issues},
                            {"rules_hash", s.rules_hash}, {"rules", s.rule_count},
                            {"labels", s.counts},         {"abstained", s.abstained},
                            {"model_id", s.model_id}};
      std::cout << out.dump(2) << "\n";
      return;
    }
    std::cout << "classifier run " << s.run_id << ": " << s.issues << " issue(s), " << s.rule_count
              << " rules (hash " << s.rules_hash << ")"
              << (s.model_id ? ", trained model " + std::to_string(s.model_id) : std::string())
              << "\n";
    for (const auto& [dim, counts] : s.counts) {
      std::cout << "  " << dim << ":";
      for (const auto& [label, n] : counts)
        std::cout << " " << (label.empty() ? "abstained" : label) << "=" << n;
      std::cout << "  (abstained " << (s.abstained.count(dim) ? s.abstained.at(dim) : 0) << ")\n";
    }
  });
}

}  // namespace convfail::cli
