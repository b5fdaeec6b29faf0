// `classify`: runs the engine over stored issues and stores the run — labels, evidence and
// extracted facts — in one transaction.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "classifier/engine.h"
#include "classifier/model.h"
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
  std::int64_t model_id = 0;  // 0: rules alone
};

// Classifies every stored issue (or those of `repos` when not empty) and stores the run. With a
// trained model, each dimension it covers takes the model's most probable label (confidence = its
// probability); the rules' own decision, the model's probabilities and the features that weighed
// most go to the label's scores_json; the fired rules stay in classifier_evidence. Throws
// UserError when there is nothing to classify. progress(done, total) may be empty.
RunSummary classify_and_store(Db& db, const Engine& engine, const std::vector<std::string>& repos,
                              const std::function<void(std::int64_t, std::int64_t)>& progress = {},
                              const TrainedModel* model = nullptr);

}  // namespace convfail::classifier
