// Agreement and evaluation statistics over paired categorical labels: Cohen's kappa (with a
// 95% confidence interval), Fleiss' kappa, confusion matrices, accuracy, per-label precision,
// recall and F1, macro-F1. Used by `eval` (classifier vs gold) and `agreement` (rater vs rater).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace convfail::labeling {

// (a, b) label pairs for the same items; for eval, a = gold and b = predicted.
using LabelPairs = std::vector<std::pair<std::string, std::string>>;

struct ConfusionMatrix {
  std::vector<std::string> labels;        // sorted union of both sides (or as given)
  std::vector<std::vector<long>> counts;  // counts[i][j]: a = labels[i], b = labels[j]
  long total = 0;
};

ConfusionMatrix confusion(const LabelPairs& pairs, std::vector<std::string> label_order = {});

struct KappaResult {
  long n = 0;
  double observed = 0;  // raw agreement p_o
  double expected = 0;  // chance agreement p_e
  double kappa = 0;     // (p_o - p_e) / (1 - p_e); 1 when p_e == 1 and p_o == 1
  double se = 0;        // asymptotic standard error (Fleiss, Cohen & Everitt 1969)
  double ci_low = 0;    // kappa - 1.96 se, clamped to [-1, 1]
  double ci_high = 0;
};

KappaResult cohen_kappa(const LabelPairs& pairs);

// ratings[i] = the labels that each rater gave item i (every item needs the same number of
// raters, at least 2). Returns Fleiss' kappa.
double fleiss_kappa(const std::vector<std::vector<std::string>>& ratings);

struct LabelScore {
  long support = 0;  // gold count
  long predicted = 0;
  long correct = 0;
  double precision = 0;  // 0 when nothing was predicted
  double recall = 0;
  double f1 = 0;
};

struct Evaluation {
  long n = 0;
  double accuracy = 0;
  double macro_f1 = 0;  // mean F1 over labels present in gold or predictions
  KappaResult kappa;
  std::map<std::string, LabelScore> per_label;
  ConfusionMatrix matrix;
};

// pairs: (gold, predicted).
Evaluation evaluate(const LabelPairs& pairs);

}  // namespace convfail::labeling
