// Shrinks one model per failure group by delta debugging over its operator graph (Zeller's ddmin
// on the list of operators: drop halves first, then ever smaller chunks down to single operators,
// i.e. bisect then linear), re-running the oracle at every step and keeping a smaller model only
// when it fails with the same outcome AND the same signature. A dropped operator's output, when a
// kept one reads it, becomes a graph input of the same shape, dtype and domain. Synthetic models
// only (their spec is the graph); the result is stored with the group: node count, program,
// graph, model files.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "campaign/campaign_types.h"
#include "core/db.h"

namespace convfail::campaign {

// ddmin over `items`: the smallest subset found for which `fails` holds (it holds for `items`),
// calling `fails` at most `budget` times.
std::vector<int> ddmin(const std::vector<int>& items,
                       const std::function<bool(const std::vector<int>&)>& fails, int budget,
                       int* tests = nullptr);

struct MinimiseOptions {
  int budget = 48;         // oracle runs per group, its first and last run included (>= 2)
  double time_budget = 0;  // seconds for all groups (0: none)
  std::int64_t group = 0;  // only this group (0: all not minimised yet)
  std::string store_dir;
  bool progress = false;
  bool perturb = false;  // the campaign's --perturb-export test hook
};

struct MinimiseSummary {
  int groups = 0, minimised = 0, skipped = 0;
  std::vector<double> ratios;  // minimised / original nodes
};

MinimiseSummary minimise_groups(Db& db, std::int64_t campaign, const OracleOptions& oracle,
                                const MinimiseOptions& options);

// How many groups of the campaign minimise_groups would try (synthetic, not minimised yet).
std::size_t groups_to_minimise(Db& db, std::int64_t campaign);

}  // namespace convfail::campaign
