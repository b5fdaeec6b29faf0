#include <iostream>
#include <memory>

#include "classifier/evaluation.h"
#include "classifier/rule_eval.h"
#include "cli/commands.h"
#include "cli/gold_options.h"
#include "core/error.h"

namespace convfail::cli {

void add_eval_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Compare a classifier run (the latest unless --run) with gold labels, per dimension:\n"
      "n, accuracy, macro-F1, Cohen's kappa (95% CI), coverage (share not abstained), accuracy\n"
      "and kappa on covered issues, per-label precision/recall/F1 and a confusion matrix.\n"
      "Abstentions count as wrong in accuracy and kappa (their own column in the matrix).\n"
      "Selective figures per dimension: issues ranked by confidence (calibrated with --fit-folds,\n"
      "else the raw rule confidence); accuracy, kappa and the lowest confidence kept on the most\n"
      "confident 25/50/75/100%; the threshold reaching --target-accuracy; expected calibration\n"
      "error (ECE: 10 equal-width confidence bins, sum of bin share x |accuracy - mean\n"
      "confidence|). Calibration is isotonic regression of \"label right\" on the raw confidence,\n"
      "per dimension, fitted on the gold issues of --fit-folds minus the evaluated issue's own\n"
      "fold: --folds 0-3 --fit-folds 0-3 cross-validates; --folds 4 --fit-folds 0-3 holds 4 out.");
  struct Args {
    GoldOptions gold;
    std::int64_t run = 0;
    std::string folds;
    bool json = false;
    bool by_rule = false;
    std::string fit_folds;
    double target_accuracy = 0.9;
    double human_share = -1;
    bool store = false;
  };
  auto args = std::make_shared<Args>();
  add_gold_options(cmd, &args->gold);
  cmd->add_option("--run", args->run, "classifier run id (default: the latest)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 53));
  cmd->add_option("--folds", args->folds,
                  "only gold rows of these folds, e.g. 0,1,2,3 or 4 (needs a fold column)");
  cmd->add_flag("--json", args->json, "print the figures as JSON");
  cmd->add_flag("--by-rule", args->by_rule,
                "also per rule: gold issues it fired on, precision (gold label is the rule's\n"
                "label), the label's base rate and lift (precision / base rate); rules firing\n"
                "on one issue or below chance are marked (JSON: \"rules\")");
  cmd->add_option("--fit-folds", args->fit_folds,
                  "fit the confidence calibration on gold rows of these folds (needs a fold\n"
                  "column); default: no calibration, raw confidence");
  cmd->add_option("--target-accuracy", args->target_accuracy,
                  "accuracy whose confidence threshold is reported (default 0.9)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--human-share", args->human_share,
                  "also the kappa against gold of hybrid labels where people label this share of\n"
                  "the least confident issues (0-1, e.g. 0.3)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--store-calibration", args->store,
                "store the calibration fitted on all of --fit-folds with the run, and the\n"
                "threshold reaching --target-accuracy there (cross-validated); the hybrid label\n"
                "source then uses calibrated confidence and that threshold");
  cmd->callback([&ctx, args] {
    Taxonomy taxonomy = Taxonomy::load(ctx.data_dir);
    std::set<int> folds;
    if (!args->folds.empty()) folds = classifier::parse_fold_list(args->folds);
    classifier::GoldSet gold_set = load_gold(
        args->gold, "eval", [&ctx]() -> Db& { return ctx.read_db(); }, taxonomy);
    std::optional<std::int64_t> run;
    if (args->run > 0) run = args->run;
    classifier::SelectiveOptions selective;
    if (!args->fit_folds.empty())
      selective.fit_folds = classifier::parse_fold_list(args->fit_folds);
    selective.target_accuracy = args->target_accuracy;
    if (args->human_share >= 0) selective.human_share = args->human_share;
    if (args->store && selective.fit_folds.empty())
      throw UsageError("--store-calibration needs --fit-folds");
    classifier::EvalReport report = classifier::evaluate_run(
        args->store ? ctx.db() : ctx.read_db(), taxonomy, gold_set, run, folds, selective);
    if (args->store) {
      auto fitted = classifier::fit_run_calibration(ctx.db(), taxonomy, gold_set, report.run_id,
                                                    selective.fit_folds, args->target_accuracy);
      classifier::store_calibration(ctx.db(), report.run_id, fitted,
                                    gold_set.source + " folds " + args->fit_folds,
                                    args->target_accuracy);
      std::cerr << "stored the calibration of run " << report.run_id << "\n";
    }
    std::vector<classifier::RuleEval> rules;
    if (args->by_rule)
      rules = classifier::evaluate_rules(
          classifier::load_rule_firings(ctx.read_db(), report.run_id), gold_set, folds);
    if (args->json) {
      nlohmann::json out = classifier::eval_report_json(report);
      if (args->by_rule) out["rules"] = classifier::rule_evals_json(rules);
      std::cout << out.dump(2) << "\n";
    } else {
      std::cout << classifier::eval_report_text(report);
      if (args->by_rule) std::cout << classifier::rule_evals_text(rules);
    }
  });
}

}  // namespace convfail::cli
