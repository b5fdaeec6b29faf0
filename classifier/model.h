// `train` and the trained model `classify` uses on top of the rules: per dimension an
// L2-regularised multinomial logistic regression over the rules' firings and decisions and the
// word/bigram features of the segmented fields. Cross-validation over the training folds picks the
// regularisation; the model is stored as a versioned artefact (table trained_models) with the
// hash of its training set (issue keys + gold labels) and the folds used.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "classifier/calibration.h"
#include "classifier/engine.h"
#include "classifier/evaluation.h"
#include "classifier/execution_evidence.h"
#include "classifier/predictor_choice.h"
#include "core/db.h"

namespace convfail::classifier {

// The feature names of one issue (binary features): "rule:ID" for every fired rule,
// "rules:DIM=LABEL" for the rules' decisions, "w:" / "t:" / "e:" words of the text, the title and
// the error lines, "b:" word bigrams.
std::set<std::string> issue_features(const Segments& segments, const Classification& rules);

struct DimensionModel {
  std::string dimension;
  std::vector<std::string> labels;           // labels seen in training
  double lambda = 0;                         // L2 strength chosen by cross-validation
  std::vector<double> bias;                  // per label
  std::vector<std::vector<double>> weights;  // [label][feature]
  std::map<double, double> cv_kappa;         // lambda -> pooled out-of-fold kappa
  double cv_accuracy = 0;                    // at the chosen lambda
  double rules_kappa = 0;                    // the rules alone on the same issues
  double rules_accuracy = 0;
  long n = 0;
  // The confidence of a prediction: isotonic calibration of the model's probability, fitted on
  // the out-of-fold predictions of the cross-validation at the chosen lambda (never in-sample),
  // and the calibrated confidence reaching kCalibrationTarget accuracy, cross-fitted (each fold's
  // out-of-fold predictions calibrated by a fit on the other folds'). Empty without CV.
  // The isotonic fit is kept only when its cross-fitted ECE is below the raw probabilities'
  // (method "isotonic"); else the probability is the confidence (method "none"); "" without CV.
  std::string calibration_method;
  Calibration calibration;
  std::optional<double> threshold;
  // Cross-fitted figures on the out-of-fold predictions (not stored): ECE of the raw and the
  // calibrated probabilities, and the selective figures with a 0.3 human share.
  double cv_raw_ece = 0;
  double cv_ece = 0;
  SelectiveEval cv_selective;

  // What `classify` uses for this dimension: train's cross-validated choice (predictor_choice.h);
  // "model" for models trained before the choice existed or without cross-validation.
  std::string predictor = kPredictorModel;
  double blend_weight = 0;  // blend: the rules' vote added to the model's log-probabilities
  // The rules' raw confidence and the blend's probability calibrated the same way as the model's,
  // on their (corrected) out-of-fold predictions.
  OutOfFoldCalibration rules_calibration;
  OutOfFoldCalibration blend_calibration;
  PredictorChoice choice;  // the evidence of the choice (not stored with the model)
  // The calibration, threshold and figures of a predictor ("rules", "model", "blend").
  OutOfFoldCalibration calibration_of(const std::string& predictor) const;
};

// The accuracy whose calibrated confidence threshold a trained model stores.
constexpr double kCalibrationTarget = 0.9;

struct TrainedModel {
  std::int64_t id = 0;  // the version: trained_models.id
  std::string rules_hash;
  double rule_scale = 1;              // norm of the rule features' block (text block: 1)
  std::vector<std::string> features;  // vocabulary
  std::map<std::string, std::size_t> index;
  std::vector<DimensionModel> dimensions;
  // Execution evidence's weights, calibrated on the training issues' stored verdicts.
  ExecutionWeights execution = default_execution_weights();
  const DimensionModel* dimension(const std::string& name) const;
};

struct Prediction {
  std::map<std::string, double> probabilities;
  std::string label;
  double probability = 0;
  std::vector<std::pair<std::string, double>> top_features;  // weight toward `label`, largest first
};

Prediction predict(const TrainedModel& model, const DimensionModel& dim,
                   const std::set<std::string>& features, std::size_t top = 5);

// Pure fitting, for tests: examples are feature sets, labels[d][i] the gold label of example i in
// dimension d ("" = none); cv_group[i] names its cross-validation fold.
// The rules' side of the examples: features (rule firings, the rules' decisions, words), the rules'
// decisions per dimension (kAbstained, or stage's abstain label, when they abstain) and their raw
// confidence.
struct RulesView {
  std::vector<std::set<std::string>> examples;
  std::map<std::string, std::vector<std::string>> rules_labels;
  std::map<std::string, std::vector<double>> rules_confidence;
  std::set<std::string> dropped;  // rules left out (rules_without only)
};
struct TrainingData {
  std::vector<std::set<std::string>> examples;
  std::map<std::string, std::vector<std::string>> labels;
  std::map<std::string, std::vector<std::string>> rules_labels;  // the rules' decisions
  std::map<std::string, std::vector<double>> rules_confidence;   // and their raw confidence
  std::map<std::string, std::string> abstain_labels;  // dimension -> the rules' abstain label
  std::vector<int> cv_group;
  // The correction of the rules' cross-validation (predictor_choice.h): per CV group, the
  // examples as the rules the other groups support see them. Empty: no correction.
  std::map<int, RulesView> rules_without;
  // Per example, the execution evidence of its stored verdicts (empty: none), for calibrating
  // the evidence's weights.
  std::vector<std::vector<ExecutionVerdict>> verdicts;
};
// The examples of `items` (in that order) whose issue is stored: features from the rules'
// classification and the segmented fields, gold labels per dimension ("" = none), the rules'
// decisions (kAbstained for an abstention), the gold fold as cv_group (-1 when none). `items`,
// `keys` ("repo#number") and `hash_parts` (the training-set hash's lines) follow the examples.
struct LabeledExamples {
  TrainingData data;
  std::vector<const GoldItem*> items;
  std::vector<std::string> keys;
  std::vector<std::string> hash_parts;
  long missing = 0;  // items whose issue is not stored
};
// `verdicts` (issue id -> its latest verdicts, from repro via the caller) fill data.verdicts; with
// `correct`, data.rules_without holds the correction for every fold of the items.
LabeledExamples labeled_examples(Db& db, const Engine& engine,
                                 const std::vector<const GoldItem*>& items,
                                 const ExecutionVerdicts& verdicts = {}, bool correct = false);

struct FitOptions {
  // Chosen by cross-validation on folds 0-3 of jajal2024 (never fold 4): rule features' block
  // scaled to norm 3 against the text block's 1, balanced label weights, this grid.
  // A single value is used as is, without cross-validation.
  std::vector<double> lambdas = {0.03, 0.01, 0.003, 0.001, 0.0003};
  int iterations = 600;
  std::size_t max_features = 5000;
  int min_doc_freq = 2;
  double rule_scale = 3;
  bool balanced = true;  // weigh examples so that every label weighs the same
  ChoiceOptions choice;
};
TrainedModel fit_model(const TrainingData& data, const FitOptions& options);

struct TrainSummary {
  std::int64_t model_id = 0;
  std::string training_hash;
  std::vector<int> folds;  // empty: every gold row
  long gold_items = 0;     // gold items in the selected folds
  long missing = 0;        // of those, not stored
  long issues = 0;         // used for training
  TrainedModel model;
};

// Fits on the gold items of `folds` (all when empty; only those: no other item is read) that
// are stored, and stores the model. Throws UserError when there are no usable gold items, or
// folds are asked of a gold set without folds.
TrainSummary train_and_store(Db& db, const Engine& engine, const GoldSet& gold,
                             const std::set<int>& folds, const FitOptions& options = {},
                             const ExecutionVerdicts& verdicts = {});

// The latest stored model; nullopt when none.
std::optional<TrainedModel> load_latest_model(Db& db);

// The trained model a classify run used and the issues it was trained on ("owner/name#N", as
// trained_models.issues_json stores them); nullopt when the run used the rules alone or is not
// stored. What `report --compare` needs to say that an agreement is in-sample.
struct RunTrainingSet {
  std::int64_t model_id = 0;
  std::vector<int> folds;  // empty: every gold row
  std::vector<std::string> issues;
};
std::optional<RunTrainingSet> run_training_set(Db& db, std::int64_t run_id);

nlohmann::json train_summary_json(const TrainSummary& s);

}  // namespace convfail::classifier
