// `eval --by-rule`: how each rule of a classifier run fares against gold labels. For every rule
// that fired on a gold issue: on how many, how often the gold label of its dimension is the
// rule's label (precision), that label's share of the gold issues (base rate) and their ratio
// (lift: below 1 the rule points at its label less often than a blind guess would). What a rule
// author needs to tell failure language from noise, and a rule that fired on one issue only
// (likely memorised) from one that generalises.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "classifier/evaluation.h"
#include "core/db.h"

namespace convfail::classifier {

// One fired rule on one issue of a run (its evidence, without the span).
struct RuleFiring {
  std::string rule_id;
  std::string dimension;
  std::string label;
  std::string repo;
  std::int64_t number = 0;
};

struct RuleEval {
  std::string rule_id;
  std::string dimension;
  std::string label;
  long fired = 0;   // gold issues it fired on
  long agreed = 0;  // of those, gold label of its dimension == its label
  double precision = 0;
  double base_rate = 0;  // share of the gold issues (with that dimension) labeled like the rule
  double lift = 0;       // precision / base_rate (0 when the label never occurs in gold)
};

// Distinct (rule, issue) firings of a run.
std::vector<RuleFiring> load_rule_firings(Db& db, std::int64_t run_id);

// Pure part: firings against gold items of the given folds (all when empty). Rules that fired on
// no selected gold issue are not listed. Order: dimension, label, then precision (highest first).
std::vector<RuleEval> evaluate_rules(const std::vector<RuleFiring>& firings, const GoldSet& gold,
                                     const std::set<int>& folds);

nlohmann::json rule_evals_json(const std::vector<RuleEval>& rules);
std::string rule_evals_text(const std::vector<RuleEval>& rules);

}  // namespace convfail::classifier
