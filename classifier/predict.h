// One issue's labels as `classify` stores them: per dimension the predictor (the rules, the trained
// model or their blend: the model's stored choice unless overridden), with the issue's execution
// evidence applied (rule-like votes for the rules, log-odds for the model and the blend).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "classifier/engine.h"
#include "classifier/execution_evidence.h"
#include "classifier/model.h"

namespace convfail::classifier {

// dimension -> rules | model | blend; dimensions not named take the model's choice (the rules
// without a model).
using PredictorOverride = std::map<std::string, std::string>;

// The predictor of a dimension: the override, else the model's choice for it, else "rules".
std::string predictor_for(const std::string& dimension, const TrainedModel* model,
                          const PredictorOverride& override_predictors);

struct DimensionResult {
  Decision decision;  // what is stored: label (nullopt = abstained), subtype, confidence
  std::string predictor;
  // scores_json: the rules' scores, the rules' own decision, the model's probabilities and top
  // features, the blend, the execution evidence and the label without it, and "rank": the
  // predictor's uncalibrated score of its label (eval orders tied confidences by it).
  nlohmann::json scores;
  std::vector<ExecutionEvidence> execution;      // this dimension's
  std::optional<std::string> without_execution;  // the label the text alone gives
};

// `rules` is the engine's classification of the issue's text (segments), `execution` its
// evidence (execution_evidence); model may be null (rules alone). Taxonomy order.
std::vector<DimensionResult> predict_issue(const Engine& engine, const Segments& segments,
                                           const Classification& rules, const TrainedModel* model,
                                           const PredictorOverride& override_predictors,
                                           const std::vector<ExecutionEvidence>& execution);

}  // namespace convfail::classifier
