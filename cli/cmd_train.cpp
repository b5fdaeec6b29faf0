#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "classifier/engine.h"
#include "classifier/evaluation.h"
#include "classifier/model.h"
#include "cli/commands.h"
#include "cli/gold_options.h"
#include "cli/stored_verdicts.h"
#include "core/error.h"

namespace convfail::cli {

namespace {

std::string signed_fixed(double v) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(3) << (v >= 0 ? "+" : "") << v;
  return o.str();
}

// The choice of one dimension and its evidence (predictor_choice.h).
std::string choice_text(const classifier::DimensionModel& d) {
  const classifier::PredictorChoice& c = d.choice;
  if (c.predictor.empty()) return "  choice: model (no cross-validation)\n";
  std::ostringstream out;
  out << std::fixed << std::setprecision(3);
  out << "  choice: " << c.predictor << " (out-of-fold kappa" << (c.corrected ? ", corrected" : "")
      << ": rules " << c.rules.kappa << ", model " << c.model.kappa << ", blend(rules vote "
      << std::setprecision(1) << c.blend_weight << std::setprecision(3) << ") " << c.blend.kappa
      << "; " << c.challenger << " - rules " << signed_fixed(c.gain) << " (margin "
      << c.options.margin << "), wins " << std::setprecision(1) << c.win_share * 100 << "% of "
      << c.options.resamples << " bootstrap resamples (needs " << c.options.min_win_share * 100
      << "%))\n"
      << std::setprecision(3);
  out << "    uncorrected: rules " << c.rules.raw_kappa << ", model " << c.model.raw_kappa
      << ", blend " << c.blend.raw_kappa;
  if (c.corrected)
    out << "; the correction left out " << std::setprecision(1) << c.dropped_rules
        << " rule(s) per held-out fold";
  out << "\n" << std::setprecision(3);
  classifier::OutOfFoldCalibration cal = d.calibration_of(d.predictor);
  for (const auto& p : cal.selective.points)
    if (p.percent == 50)
      out << "    " << d.predictor << " out of fold: accuracy of the most confident half "
          << p.accuracy << ", hybrid@30% kappa "
          << (cal.selective.human_share ? cal.selective.hybrid_kappa : 0.0) << ", threshold for "
          << classifier::kCalibrationTarget << ": "
          << (cal.threshold ? std::to_string(*cal.threshold) : std::string("not reached")) << "\n";
  return out.str();
}

std::string execution_text(const classifier::ExecutionWeights& w) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(2);
  out << "execution evidence: " << w.issues << " training issue(s) with evidence; weights:\n";
  for (const auto& [key, x] : w.by_key)
    out << "  " << key << " -> " << x.kind.dimension << "=" << x.kind.label << ": " << x.weight
        << " (prior precision " << x.kind.prior << ", " << x.agreed << " of " << x.n
        << " training issues agree, base rate " << x.base << ")\n";
  return out.str();
}

// The options of `train`.
struct TrainArgs {
  GoldOptions gold;
  std::string folds;
  std::string rules;
  int iterations = 600;
  classifier::FitOptions fit;
  bool unbalanced = false;
  bool json = false;
};

const char* const kTrainHelp =
    "Fit a model on top of the rules from gold labels: per dimension (symptom, cause, stage)\n"
    "an L2-regularised multinomial logistic regression (examples weighed so that every label\n"
    "weighs the same) over the rules' firings and decisions and the words and word pairs of the "
    "segmented fields (title, body, code, tracebacks,\n"
    "error lines, comments). Cross-validation over the training folds (4 parts by position\n"
    "when the gold set has no folds) picks the regularisation; the figures printed are the\n"
    "pooled out-of-fold kappa of the model and the kappa of the rules alone on the same\n"
    "issues. With --folds only the gold rows of those folds are read: e.g. --folds 0-3 keeps\n"
    "fold 4 held out. The model is stored with the hash of its training set (issue keys and\n"
    "labels) and its folds; `classify` uses the latest one. Deterministic.\n"
    "The model's confidence is calibrated on out-of-fold predictions only: isotonic regression\n"
    "of \"label right\" on the probability the cross-validated models gave the issues they did\n"
    "not see, kept only when its cross-fitted ECE (each fold's predictions calibrated by a fit\n"
    "on the other folds') beats the raw probabilities' (else calibration: none). The threshold\n"
    "reaching 0.9 accuracy on those out-of-fold confidences is stored with the model and, by\n"
    "`classify`, with its run for the hybrid label source.\n"
    "\n"
    "Per dimension, train then chooses what `classify` uses: the rules, the model, or a blend\n"
    "(the model's log-probabilities plus the rules' decision as a vote of weight 0.5-8, the\n"
    "best by out-of-fold kappa). The rules were written on the development folds, so their\n"
    "figures there are corrected: for each held-out fold, rules that the other folds do not\n"
    "support (firing on fewer than 2 of their gold issues, or pointing at their label less\n"
    "often than its base rate there) are left out, for the rules and for the model's and the\n"
    "blend's rule features alike. The better of model and blend replaces the rules only when\n"
    "its corrected out-of-fold kappa is at least 0.02 higher and it wins in at least 80% of\n"
    "2000 paired bootstrap resamples of the issues; else the rules stay. The choice is\n"
    "printed with these figures (corrected and uncorrected) and stored with the model;\n"
    "`classify --model-for` overrides it. Each predictor's confidence is calibrated on its\n"
    "corrected out-of-fold outputs.\n"
    "Execution evidence (see `classify --help`): the weight of each kind is calibrated on the\n"
    "training issues' stored verdicts (printed; the taxonomy-based prior where there are\n"
    "none) and stored with the model.";

// `train`: fit, choose and store the model, then print its figures.
void run_train(Context& ctx, const TrainArgs& a) {
  Taxonomy taxonomy = Taxonomy::load(ctx.data_dir);
  std::set<int> folds;
  if (!a.folds.empty()) folds = classifier::parse_fold_list(a.folds);
  classifier::GoldSet gold_set = load_gold(
      a.gold, "train", [&ctx]() -> Db& { return ctx.db(); }, taxonomy);
  std::string dir = a.rules.empty() ? ctx.data_dir + "/rules" : a.rules;
  classifier::Engine engine(classifier::load_rules(dir, taxonomy), taxonomy);
  classifier::FitOptions options = a.fit;
  options.iterations = a.iterations;
  options.balanced = !a.unbalanced;
  classifier::TrainSummary s = classifier::train_and_store(ctx.db(), engine, gold_set, folds,
                                                           options, stored_verdicts(ctx.db()));
  if (a.json) {
    std::cout << classifier::train_summary_json(s).dump(2) << "\n";
    return;
  }
  std::ostringstream out;
  out << std::fixed << std::setprecision(3);
  out << "trained model " << s.model_id << ": " << s.issues << " issue(s)";
  if (!s.folds.empty()) {
    out << " of folds";
    for (int f : s.folds) out << " " << f;
  }
  out << ", " << s.model.features.size() << " features, training set hash " << s.training_hash
      << "\n";
  if (s.missing)
    out << "  " << s.missing << " of " << s.gold_items << " gold issue(s) not stored, skipped\n";
  for (const auto& d : s.model.dimensions)
    out << d.dimension << ": n=" << d.n << " lambda=" << d.lambda
        << " cv_kappa=" << d.cv_kappa.at(d.lambda) << " cv_accuracy=" << d.cv_accuracy
        << " rules_kappa=" << d.rules_kappa << " rules_accuracy=" << d.rules_accuracy << "\n"
        << "  out-of-fold confidence: ece raw=" << d.cv_raw_ece << " kept=" << d.cv_ece
        << " (calibration: " << d.calibration_method << "); threshold for accuracy "
        << classifier::kCalibrationTarget << ": "
        << (d.threshold ? std::to_string(*d.threshold) : std::string("not reached")) << "\n"
        << choice_text(d);
  out << execution_text(s.model.execution);
  std::cout << out.str();
}

}  // namespace

void add_train_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(kTrainHelp);
  auto args = std::make_shared<TrainArgs>();
  add_gold_options(cmd, &args->gold);
  cmd->add_option("--folds", args->folds,
                  "only gold rows of these folds, e.g. 0-3 (needs a fold column; default: all)");
  cmd->add_option("--rules", args->rules, "rules folder (default: DATA_DIR/rules)");
  cmd->add_option("--iterations", args->iterations, "gradient steps per fit (default 600)")
      ->check(CLI::Range(10, 5000));
  cmd->add_option("--rule-scale", args->fit.rule_scale,
                  "weight of the rule features' block against the words' (norms; default 3)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--max-features", args->fit.max_features,
                  "vocabulary cap, most frequent first (default 5000)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  cmd->add_option("--min-doc-freq", args->fit.min_doc_freq,
                  "a word feature needs this many training issues (default 2)")
      ->check(CLI::Range(1, 1000));
  cmd->add_flag("--unbalanced", args->unbalanced,
                "weigh every issue the same instead of every label the same");
  cmd->add_flag("--json", args->json, "print the training summary as JSON");
  cmd->callback([&ctx, args] { run_train(ctx, *args); });
}

}  // namespace convfail::cli
