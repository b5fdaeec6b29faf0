// `eval`: compares a classifier run with gold labels (an annotator's manual labels, or a CSV file
// such as the jajal2024 labels.csv) per dimension: accuracy, macro-F1, Cohen's kappa, per-label
// precision/recall, confusion, coverage (share not abstained) and accuracy on covered issues.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "classifier/calibration.h"
#include "core/db.h"
#include "core/taxonomy.h"
#include "labeling/agreement.h"
#include "labeling/label_sets.h"

namespace convfail::classifier {

struct GoldItem {
  std::string repo;
  std::int64_t number = 0;
  std::optional<int> fold;
  std::map<std::string, std::string> values;  // dimension -> label id (and "subtype")
};

struct GoldSet {
  std::string source;  // annotator name or file path
  bool has_folds = false;
  std::vector<GoldItem> items;
};

// Reads a CSV with columns repo, number, symptom, cause, stage (subtype and fold optional; other
// columns ignored). Labels are normalised through the taxonomy; an unknown label is an error
// "file:line: reason".
GoldSet load_gold_file(const std::string& path, const Taxonomy& taxonomy);
GoldSet gold_from_labels(const std::string& source,
                         const std::vector<labeling::IssueLabels>& labels);

// How gold items meet stored issues: repository compared without case, then number.
using IssueKey = std::pair<std::string, std::int64_t>;
IssueKey issue_key(const std::string& repo, std::int64_t number);

// Whether a gold item is in the selected folds (every item when `folds` is empty).
bool in_folds(const GoldItem& item, const std::set<int>& folds);

struct DimensionEval {
  std::string dimension;
  long n = 0;        // issues with a gold label and a classifier decision
  long covered = 0;  // not abstained
  double coverage = 0;
  double covered_accuracy = 0;
  double covered_kappa = 0;
  double macro_f1 = 0;       // over real labels (gold or predicted), the abstention marker excluded
  labeling::Evaluation all;  // abstentions as kAbstained (stage: its abstain label)
  SelectiveEval selective;   // risk-coverage figures on the same issues
  long manual = 0;           // hybrid sources: evaluated cells resting on manual labels
  long automatic = 0;        // and on classifier labels (the rest are unlabeled)
};

// Calibration and selective figures asked of evaluate_run.
struct SelectiveOptions {
  // Folds whose gold labels fit the calibration; each evaluated issue's calibration is fitted on
  // these folds minus its own (cross-validation by fold). Empty: raw confidence, no calibration.
  std::set<int> fit_folds;
  double target_accuracy = 0.9;
  std::optional<double> human_share;
  std::vector<double> share_thresholds = default_share_thresholds();
};

// Labels evaluated instead of a classifier run's: another label source (e.g. hybrid:ANNOTATOR).
struct EvaluatedLabels {
  std::string source;
  std::vector<labeling::IssueLabels> labels;
};

struct EvalReport {
  std::int64_t run_id = 0;  // 0 when another label source is evaluated
  std::string source;       // "classifier run N" or the label source's name
  std::string gold_source;
  std::vector<int> folds;  // empty: all
  long gold_items = 0;     // gold items in the selected folds
  long missing = 0;        // of those, not in the run
  std::vector<DimensionEval> dimensions;
  bool calibrated = false;
  std::vector<int> fit_folds;
  std::string warning;  // e.g. a calibration fitted in-sample of the run's trained model
};

// Throws UserError when there is no run, or folds are asked of a gold set without folds. With
// `labels`, those are evaluated instead of a run (run_id ignored; confidence as they carry it).
EvalReport evaluate_run(Db& db, const Taxonomy& taxonomy, const GoldSet& gold,
                        std::optional<std::int64_t> run_id, const std::set<int>& folds,
                        const SelectiveOptions& selective = {},
                        const EvaluatedLabels* labels = nullptr);

// The calibration of one dimension fitted on every gold issue of `fit_folds` in the run (what
// `eval --store-calibration` stores), with the threshold reaching `target_accuracy` on the
// cross-validated calibrated confidences of those issues.
struct FittedCalibration {
  std::string dimension;
  Calibration calibration;
  std::optional<double> threshold;
  long samples = 0;
};
std::vector<FittedCalibration> fit_run_calibration(Db& db, const Taxonomy& taxonomy,
                                                   const GoldSet& gold, std::int64_t run_id,
                                                   const std::set<int>& fit_folds,
                                                   double target_accuracy);

// Pure part, for tests: gold vs predicted labels per dimension. predicted values missing for
// symptom/cause mean abstention; for stage the abstain label does.
DimensionEval evaluate_dimension(
    const Taxonomy& taxonomy, const std::string& dimension,
    const std::vector<std::pair<std::string, std::optional<std::string>>>& gold_and_predicted);

// Replaces the stored calibration of a run: per dimension the fitted function and threshold, and
// the calibrated probability of every label of the run (table classifier_calibrated).
void store_calibration(Db& db, std::int64_t run_id, const std::vector<FittedCalibration>& fitted,
                       const std::string& fitted_on, double target_accuracy);

nlohmann::json eval_report_json(const EvalReport& report);
std::string eval_report_text(const EvalReport& report);

// Parses "0,1,2" (ranges "0-3" allowed); throws UsageError.
std::set<int> parse_fold_list(const std::string& text);

}  // namespace convfail::classifier
