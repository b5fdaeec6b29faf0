// Calibrated confidence: a probability that a label is right, fitted per dimension on gold labels
// from the classifier's raw confidence by isotonic regression (pool adjacent violators), its
// expected calibration error, and the selective (risk-coverage) figures `eval` prints.
//
// Isotonic rather than Platt scaling: the raw confidence is a share of rule weight with many ties
// (0 for no rule fired, 1 for a lone rule) and no reason to follow a sigmoid; isotonic regression
// only assumes that a higher raw confidence is not less likely right, and keeps the ranking.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace convfail::classifier {

// A non-decreasing step function of raw confidence: blocks ordered by `from` (the lowest raw
// confidence of the block); a raw value takes the probability of the last block starting at or
// below it (the first block below the first start).
struct Calibration {
  std::vector<std::pair<double, double>> blocks;  // (from, probability)
  bool empty() const { return blocks.empty(); }
  double apply(double raw) const;  // raw itself when empty
};

// samples: (raw confidence, label right). Equal raw values are pooled first; then adjacent blocks
// whose mean decreases are pooled until the means do not decrease.
Calibration fit_isotonic(const std::vector<std::pair<double, bool>>& samples);

// Expected calibration error over `bins` equal-width bins of [0, 1] (a probability p goes to bin
// min(bins-1, floor(p * bins))): sum over bins of (bin count / n) * |accuracy - mean probability|.
// 0 for no samples.
double expected_calibration_error(const std::vector<std::pair<double, bool>>& samples,
                                  int bins = 10);

// One gold issue of one dimension for the selective figures.
struct ScoredLabel {
  std::string gold;
  std::string predicted;  // abstention marker included: counts as wrong unless equal to gold
  double confidence = 0;  // calibrated (or raw) probability
  double raw = 0;         // breaks ties of `confidence` (higher first)
};

struct CoveragePoint {
  int percent = 0;  // 25, 50, 75, 100
  long n = 0;       // ceil(percent/100 * total) most confident issues
  double accuracy = 0;
  double kappa = 0;
  double threshold = 0;  // confidence of the least confident issue kept
};

// At one confidence threshold: labels with confidence >= threshold are answered (right or wrong),
// the rest (and abstentions) are not: the shares of all issues, as deployed issue labelers report.
struct ThresholdShares {
  double threshold = 0;
  double correct = 0;
  double wrong = 0;
  double abstained = 0;
};

// The thresholds `eval` reports by default: 0, 0.1, ..., 0.9, 0.95.
const std::vector<double>& default_share_thresholds();

struct SelectiveEval {
  long n = 0;
  double ece = 0;
  std::vector<CoveragePoint> points;
  double target_accuracy = 0.9;
  // The lowest confidence threshold whose kept issues (confidence >= threshold) reach the target
  // accuracy, with the coverage and accuracy it gives; empty when no prefix reaches it.
  std::optional<double> target_threshold;
  double target_coverage = 0;
  double target_reached = 0;
  // Hybrid: the least confident `human_share` of the issues take their gold label, the rest the
  // classifier's; kappa of that against gold. Empty when not asked.
  std::optional<double> human_share;
  long human_labeled = 0;
  double hybrid_kappa = 0;
  std::vector<ThresholdShares> thresholds;  // when asked
};

// The predicted-label stand-in for an abstention of symptom/cause (kappa, accuracy and the
// confusion matrix count it as a wrong answer; the threshold shares as not answered).
extern const char* const kAbstained;

// With share_thresholds, also the shares at each (a prediction equal to kAbstained is never
// answered).
SelectiveEval selective_eval(std::vector<ScoredLabel> items, double target_accuracy,
                             std::optional<double> human_share,
                             const std::vector<double>& share_thresholds = {});

// The confidence threshold reaching `target_accuracy` on samples (probability, right): the lowest
// probability p such that the samples with probability >= p are right at least that often.
std::optional<double> threshold_for_accuracy(std::vector<std::pair<double, bool>> samples,
                                             double target_accuracy);

// One out-of-fold prediction of a predictor (a trained model, the rules, a blend): the fold it was
// held out in, the probability (or raw confidence) of the label it chose, that label and gold.
struct OutOfFoldSample {
  int group = 0;
  double p = 0;
  std::string gold, predicted;
};

// A predictor's confidence calibrated on its out-of-fold predictions, never in-sample: isotonic
// regression of "label right" on p over all of them (`calibration`), kept only when its
// cross-fitted ECE (each fold's samples calibrated by a fit on the other folds') is below the raw
// p's (method "isotonic"; else "none", and p is the confidence); the cross-fitted confidence
// threshold reaching `target_accuracy`, and the selective figures with a `human_share` hybrid.
struct OutOfFoldCalibration {
  std::string method;  // isotonic | none | "" (no samples)
  Calibration calibration;
  std::optional<double> threshold;
  double raw_ece = 0;
  double ece = 0;
  SelectiveEval selective;
  double apply(double p) const { return calibration.empty() ? p : calibration.apply(p); }
};
OutOfFoldCalibration calibrate_out_of_fold(const std::vector<OutOfFoldSample>& samples,
                                           double target_accuracy, double human_share);

}  // namespace convfail::classifier
