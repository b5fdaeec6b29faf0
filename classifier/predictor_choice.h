// Per dimension, which predictor `classify` uses: the rules, the trained model, or a blend of the
// two, decided by `train` from out-of-fold predictions on the training folds, with a margin that
// favours the rules, after correcting the rules' cross-validation for having been written on those
// folds.
//
// The correction ("rules as if written without the held-out fold"): the rules were written by
// people reading folds 0-3, so the rules' figures on a fold are not out-of-fold. For each held-out
// fold g, a rule is kept only when the other folds support it by the project's own standard for a
// rule (tests/unit/classifier/test_rule_coverage.cpp: it describes language seen in at least two
// development issues) and does not point at its label less often than chance there: it fires on
// >= kMinRuleSupport gold issues of the other folds and its precision there is at least its
// label's base rate (lift >= 1). The other rules decide fold g's issues (same engine settings),
// and the same reduced rules give the model's and the blend's rule features in that fold's fit,
// so every predictor is measured the same way. It removes rules that only their own fold
// supports; it does not undo weights tuned on all four folds, so the rules' corrected figures
// still lean optimistic, which the margin does not offset (it favours the rules on purpose).
//
// The choice: the challenger is the better of model and blend (corrected out-of-fold kappa); it is
// chosen over the rules only when its kappa is at least `margin` higher AND it beats the rules in
// at least `min_win_share` of paired bootstrap resamples of the issues; else the rules stay.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace convfail::classifier {

inline constexpr const char* kPredictorRules = "rules";
inline constexpr const char* kPredictorModel = "model";
inline constexpr const char* kPredictorBlend = "blend";
bool is_predictor(const std::string& name);

// A rule must fire on this many gold issues of the other folds to be kept for a held-out fold.
inline constexpr long kMinRuleSupport = 2;

// One fired rule of one example.
struct RuleHit {
  std::string rule_id;
  std::string dimension;
  std::string label;
};

// The rules the other folds do not support for held-out group `held_out` (see above).
// fired[i]: example i's fired rules; gold[dimension][i]: its gold label ("" = none); group[i]:
// its fold.
std::set<std::string> rules_unsupported_without(
    const std::vector<std::vector<RuleHit>>& fired,
    const std::map<std::string, std::vector<std::string>>& gold, const std::vector<int>& group,
    int held_out);

// softmax(log p + shift): p's log-odds moved by shift[k] toward label k, renormalised. Used by the
// blend (the rules' vote) and by execution evidence.
std::vector<double> shift_log_odds(const std::vector<double>& p, const std::vector<double>& shift);

// The blend of a model's probabilities p with the rules' decision: softmax(log p + weight *
// [label == the rules' label]); p unchanged when the rules abstained (rules_label empty).
std::vector<double> blend_probabilities(const std::vector<double>& p,
                                        std::optional<std::size_t> rules_label, double weight);
// The rules' vote weights train tries for the blend (the best by out-of-fold kappa is kept).
const std::vector<double>& blend_weights();

// Paired bootstrap over the rows: the share of `resamples` resamples (with replacement, seeded,
// deterministic) in which Cohen's kappa of `a` against gold exceeds that of `b`.
double bootstrap_win_share(const std::vector<std::string>& gold, const std::vector<std::string>& a,
                           const std::vector<std::string>& b, int resamples, std::uint64_t seed);

struct PredictorCv {
  double kappa = 0;  // out-of-fold, corrected (see above)
  double accuracy = 0;
  double raw_kappa = 0;  // without the correction
  double raw_accuracy = 0;
};

struct ChoiceOptions {
  double margin = 0.02;
  double min_win_share = 0.8;
  int resamples = 2000;
  std::uint64_t seed = 1;
};

struct PredictorChoice {
  std::string predictor;  // rules | model | blend; "" when no cross-validation was possible
  double blend_weight = 0;
  PredictorCv rules, model, blend;
  std::string challenger;  // model or blend
  double gain = 0;         // challenger kappa - rules kappa (corrected)
  double win_share = 0;    // challenger beats the rules in this share of bootstrap resamples
  ChoiceOptions options;
  double dropped_rules = 0;  // mean rules the correction left out per held-out fold
  bool corrected = false;    // false: no rule firings given, figures uncorrected
};

// Fills kappa/accuracy of rules, model and blend (the out-of-fold predictions, corrected) and
// decides. Labels are compared as strings (an abstention is its own value).
PredictorChoice choose_predictor(const std::vector<std::string>& gold,
                                 const std::vector<std::string>& rules,
                                 const std::vector<std::string>& model,
                                 const std::vector<std::string>& blend, double blend_weight,
                                 const ChoiceOptions& options = {});

}  // namespace convfail::classifier
