#include <algorithm>
#include <iostream>
#include <memory>

#include "classifier/active_learning.h"
#include "classifier/engine.h"
#include "classifier/evaluation.h"
#include "classifier/rule_eval.h"
#include "classifier/rules.h"
#include "cli/commands.h"
#include "cli/gold_options.h"
#include "core/error.h"
#include "core/text.h"
#include "labeling/label_sets.h"
#include "labelsets/source_labels.h"

namespace convfail::cli {

namespace {

std::string fold_text(const std::set<int>& folds) {
  std::vector<std::string> parts;
  for (int f : folds) parts.push_back(std::to_string(f));
  return join(parts, ",");
}

template <typename Args>
void simulate(Context& ctx, const Taxonomy& taxonomy, const Args& a) {
  if (a.store || a.by_rule || !a.fit_folds.empty() || a.run > 0 || a.human_share >= 0)
    throw UsageError(
        "--simulate-annotation takes none of --run, --fit-folds, --store-calibration, "
        "--by-rule, --human-share");
  classifier::GoldSet gold = load_gold(
      a.gold, "eval", [&ctx]() -> Db& { return ctx.read_db(); }, taxonomy);
  std::set<int> pool, held_out;
  if (!a.folds.empty()) pool = classifier::parse_fold_list(a.folds);
  if (!a.eval_folds.empty()) held_out = classifier::parse_fold_list(a.eval_folds);
  if (!gold.has_folds && (!pool.empty() || !held_out.empty()))
    throw UserError(gold.source + ": --folds and --eval-folds need a gold set with a fold column");
  if (gold.has_folds && pool.empty()) pool = {0, 1, 2, 3};
  std::vector<const classifier::GoldItem*> items;
  for (const classifier::GoldItem& g : gold.items)
    if (!gold.has_folds || (g.fold && (pool.count(*g.fold) || held_out.count(*g.fold))))
      items.push_back(&g);
  std::sort(items.begin(), items.end(), [](const auto* x, const auto* y) {
    return classifier::issue_key(x->repo, x->number) < classifier::issue_key(y->repo, y->number);
  });
  classifier::Engine engine(classifier::load_rules(ctx.data_dir + "/rules", taxonomy), taxonomy);
  classifier::LabeledExamples ex = classifier::labeled_examples(ctx.read_db(), engine, items);
  if (ex.data.examples.empty())
    throw UserError(gold.source + ": none of the " + std::to_string(items.size()) +
                    " gold issue(s) is stored (run import first)");
  if (ex.missing)
    std::cerr << ex.missing << " of " << items.size() << " gold issue(s) not stored, skipped\n";
  std::vector<classifier::SimulationSplit> splits =
      classifier::fold_splits(ex.data.cv_group, pool, held_out);
  classifier::SimulationOptions options;
  options.batch = static_cast<std::size_t>(a.batch);
  options.seeds = a.seeds;
  options.measure = a.uncertainty;
  for (const auto& d : taxonomy.dimensions()) options.dimensions.push_back(d.id);
  options.fit.lambdas = {a.lambda};
  options.fit.iterations = a.iterations;
  classifier::SimulationResult r = classifier::simulate_annotation(ex.data, splits, options);
  if (a.json) {
    nlohmann::json out = classifier::simulation_json(r);
    out["gold_source"] = gold.source;
    out["pool_folds"] = std::vector<int>(pool.begin(), pool.end());
    out["eval_folds"] = std::vector<int>(held_out.begin(), held_out.end());
    out["splits"] = splits.size();
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << "gold " << terminal_safe(gold.source) << ", pool folds "
              << (pool.empty() ? std::string("(none: 4 parts by position)") : fold_text(pool))
              << ", held out "
              << (held_out.empty()
                      ? "each pool fold in turn (" + std::to_string(splits.size()) + " splits)"
                      : "folds " + fold_text(held_out))
              << "\n"
              << classifier::simulation_text(r);
  }
}

// The options of `eval`.
struct EvalArgs {
  GoldOptions gold;
  std::int64_t run = 0;
  std::string folds;
  bool json = false;
  bool by_rule = false;
  std::string fit_folds;
  double target_accuracy = 0.9;
  double human_share = -1;
  bool store = false;
  std::string source = "classifier";
  std::optional<double> min_confidence;
  bool simulate = false;
  int batch = 20;
  std::string eval_folds;
  int seeds = 5;
  std::string uncertainty = "margin";
  double lambda = 0.003;
  int iterations = 300;
  std::vector<double> thresholds;
};

const char* const kEvalHelp =
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
    "fold: --folds 0-3 --fit-folds 0-3 cross-validates; --folds 4 --fit-folds 0-3 holds 4 out.\n"
    "A run labeled by a trained model carries the model's confidence, already calibrated on\n"
    "out-of-fold predictions (`train --help`): evaluate it without --fit-folds (a fit on the\n"
    "model's training folds would be in-sample; eval warns).\n"
    "Beside kappa, per dimension the shares of correct, wrong and abstained labels at each\n"
    "confidence threshold (--thresholds, default 0,0.1,...,0.9,0.95): a label whose\n"
    "confidence reaches the threshold is answered (correct or wrong), the rest and the\n"
    "classifier's own abstentions count as abstained; so a threshold can be picked for a\n"
    "wanted error share. JSON: selective.DIM.thresholds.\n"
    "\n"
    "--simulate-annotation replays an annotator instead (no classifier run needed: the stored\n"
    "issues, the rules and `train`'s model, refitted with one --lambda after every batch): the\n"
    "pool is the gold issues of --folds (default 0-3; fold 4 only when named), labeled --batch\n"
    "at a time in two orders, the model's most uncertain issues first (the first batch random)\n"
    "and random order; after each batch it prints per dimension the kappa of the model on the\n"
    "held-out issues, each order averaged over --seeds random draws. Held out: the gold issues\n"
    "of --eval-folds when given (e.g. --folds 0-3 --eval-folds 4 for reporting), else each fold\n"
    "of the pool in turn with the others as the pool (cross-validation; kappa pools the\n"
    "held-out predictions of all turns). It ends with the final kappa (every pool label given)\n"
    "and the number of labels at which each order first reaches it. A gold set without folds\n"
    "is cut into 4 parts by position.";

// `eval` of a run or label source against gold labels (or the simulation).
void run_eval(Context& ctx, const EvalArgs& a) {
  Taxonomy taxonomy = Taxonomy::load(ctx.data_dir);
  if (a.simulate) {
    simulate(ctx, taxonomy, a);
    return;
  }
  std::set<int> folds;
  if (!a.folds.empty()) folds = classifier::parse_fold_list(a.folds);
  classifier::GoldSet gold_set = load_gold(
      a.gold, "eval", [&ctx]() -> Db& { return ctx.read_db(); }, taxonomy);
  std::optional<std::int64_t> run;
  if (a.run > 0) run = a.run;
  const std::string& source = a.source;
  const labeling::LabelSource parsed = labeling::LabelSource::parse(source);
  if (a.min_confidence && !parsed.hybrid())
    throw UsageError("--min-confidence applies to --source hybrid[:ANNOTATOR] only");
  std::optional<classifier::EvaluatedLabels> labels;
  if (parsed.classifier() && parsed.run) {
    if (run) throw UsageError("give the run either as --run or as --source classifier:RUN_ID");
    run = parsed.run;
  } else if (!parsed.classifier()) {
    if (run || !a.fit_folds.empty() || a.store || a.by_rule || a.human_share >= 0)
      throw UsageError("--source " + source +
                       " takes none of --run, --fit-folds, --store-calibration, --by-rule, "
                       "--human-share (they are about a classifier run)");
    labels = classifier::EvaluatedLabels{
        source, labelsets::load_label_set(ctx.read_db(), parsed, a.min_confidence)};
  }
  classifier::SelectiveOptions selective;
  if (!a.fit_folds.empty()) selective.fit_folds = classifier::parse_fold_list(a.fit_folds);
  selective.target_accuracy = a.target_accuracy;
  if (!a.thresholds.empty()) {
    selective.share_thresholds = a.thresholds;
    std::sort(selective.share_thresholds.begin(), selective.share_thresholds.end());
  }
  if (a.human_share >= 0) selective.human_share = a.human_share;
  if (a.store && selective.fit_folds.empty())
    throw UsageError("--store-calibration needs --fit-folds");
  classifier::EvalReport report =
      classifier::evaluate_run(a.store ? ctx.db() : ctx.read_db(), taxonomy, gold_set, run, folds,
                               selective, labels ? &*labels : nullptr);
  if (a.store) {
    auto fitted = classifier::fit_run_calibration(ctx.db(), taxonomy, gold_set, report.run_id,
                                                  selective.fit_folds, a.target_accuracy);
    classifier::store_calibration(ctx.db(), report.run_id, fitted,
                                  gold_set.source + " folds " + a.fit_folds, a.target_accuracy);
    std::cerr << "stored the calibration of run " << report.run_id << "\n";
  }
  if (!report.warning.empty()) std::cerr << "warning: " << report.warning << "\n";
  std::vector<classifier::RuleEval> rules;
  if (a.by_rule)
    rules = classifier::evaluate_rules(classifier::load_rule_firings(ctx.read_db(), report.run_id),
                                       gold_set, folds);
  if (a.json) {
    nlohmann::json out = classifier::eval_report_json(report);
    if (a.by_rule) out["rules"] = classifier::rule_evals_json(rules);
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << classifier::eval_report_text(report);
    if (a.by_rule) std::cout << classifier::rule_evals_text(rules);
  }
}

}  // namespace

void add_eval_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(kEvalHelp);
  auto args = std::make_shared<EvalArgs>();
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
  cmd->add_option("--source", args->source,
                  "labels to evaluate: classifier (default: the run of --run, else the latest),\n"
                  "classifier:RUN_ID, hybrid or hybrid:ANNOTATOR (manual labels where they exist,\n"
                  "else classifier labels whose confidence reaches --min-confidence; prints how\n"
                  "many cells are manual and automatic), consensus, or an annotator")
      ->capture_default_str();
  cmd->add_option("--min-confidence", args->min_confidence,
                  "hybrid sources: the confidence a classifier label needs (default: the\n"
                  "stored calibration's threshold, else the raw default)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--thresholds", args->thresholds,
                  "confidence thresholds of the correct/wrong/abstained shares, comma-separated\n"
                  "(default 0,0.1,...,0.9,0.95)")
      ->delimiter(',')
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--simulate-annotation", args->simulate,
                "simulate labeling in uncertainty vs random order (see below)");
  cmd->add_option("--batch", args->batch,
                  "simulation: issues labeled per batch (every dimension), the model "
                  "refitted\nafter each (default 20)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--eval-folds", args->eval_folds,
                  "simulation: held-out folds (default: cross-validation within --folds)");
  cmd->add_option("--seeds", args->seeds, "simulation: random orders averaged (1-100, default 5)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--uncertainty", args->uncertainty,
                  "simulation: margin (1 - top two probabilities' difference) or entropy,\n"
                  "averaged over the dimensions (default margin)")
      ->check(CLI::IsMember({"margin", "entropy"}));
  cmd->add_option("--lambda", args->lambda,
                  "simulation: L2 strength of every refit (default 0.003)")
      ->check(CLI::Range(1e-6, 10.0));
  cmd->add_option("--iterations", args->iterations,
                  "simulation: gradient steps per refit (default 300)")
      ->check(CLI::Range(10, 5000));
  cmd->callback([&ctx, args] { run_eval(ctx, *args); });
}

}  // namespace convfail::cli
