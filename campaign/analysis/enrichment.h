// Which features (operator types, operator n-grams) are more frequent in failing models than in
// passing ones: per feature Fisher's exact test against the rest, Benjamini-Hochberg over all
// features tested.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace convfail::campaign {

struct Enrichment {
  std::string feature;
  long case_with = 0, control_with = 0;        // models holding the feature
  long case_without = 0, control_without = 0;  // models not holding it
  double case_rate = 0;  // case_with / (case_with + control_with): failure rate with it
  double rest_rate = 0;  // the same among models without it (0 when every model holds it)
  // reports/significance.h: above 1 exactly when case_rate > rest_rate; infinite or 0 with a
  // zero cell, NaN when there is no evidence either way.
  double odds_ratio = 0;
  double p = 1, q = 1;  // Fisher two-sided, Benjamini-Hochberg
};

// `features[i]` are model i's features; `is_case[i]` says whether it failed (controls are the
// rest: callers leave models of neither kind out). Features held by fewer than `min_models`
// models are not tested (nor counted in the correction). Sorted by q, then p, then larger odds
// ratio, then feature: the same for any model order.
std::vector<Enrichment> enrichment(const std::vector<std::set<std::string>>& features,
                                   const std::vector<bool>& is_case, long min_models = 1);

}  // namespace convfail::campaign
