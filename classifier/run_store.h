// `classify`: runs the engine over stored issues and stores the run — labels, evidence and
// extracted facts — in one transaction.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "classifier/engine.h"
#include "classifier/execution_evidence.h"
#include "classifier/model.h"
#include "classifier/predict.h"
#include "core/db.h"

namespace convfail::classifier {

struct RunSummary {
  std::int64_t run_id = 0;
  std::int64_t issues = 0;
  std::string rules_hash;
  std::size_t rule_count = 0;
  // dimension -> label -> issues ("" = abstained; stage abstains as its abstain label)
  std::map<std::string, std::map<std::string, std::int64_t>> counts;
  std::map<std::string, std::int64_t> abstained;
  std::int64_t model_id = 0;                      // 0: rules alone
  std::map<std::string, std::string> predictors;  // dimension -> rules | model | blend
  std::int64_t execution_issues = 0;              // issues with execution evidence
  // dimension -> labels the execution evidence changed (from what the text alone gives)
  std::map<std::string, std::int64_t> moved_by_execution;
  // Unfinished runs of this host whose classify had died, marked abandoned before this run
  // started (run_status.h).
  std::vector<std::int64_t> abandoned_runs;
};

struct ClassifyOptions {
  const TrainedModel* model = nullptr;          // null: the rules alone
  PredictorOverride predictors;                 // overrides the model's per-dimension choice
  const ExecutionVerdicts* verdicts = nullptr;  // issue id -> its latest verdicts
  std::function<void(std::int64_t, std::int64_t)> progress;  // (done, total); may be empty
};

// Classifies every stored issue (or those of `repos` when not empty) and stores the run. Each
// dimension takes its predictor (predict_issue): the rules, or with a trained model its choice
// (or the override): the model's or the blend's most probable label, confidence calibrated out of
// fold; the rules' own decision, the model's probabilities and top features go to scores_json.
// Execution evidence from `verdicts` (with the model's calibrated weights, else the defaults)
// votes for symptom and stage and is stored in classifier_execution_evidence; the fired rules in
// classifier_evidence. Throws UserError when there is nothing to classify.
RunSummary classify_and_store(Db& db, const Engine& engine, const std::vector<std::string>& repos,
                              const ClassifyOptions& options = {});

}  // namespace convfail::classifier
