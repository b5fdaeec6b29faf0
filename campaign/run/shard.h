// Sharding a campaign's plan over machines (`convfail test run --shard K/N`, Slurm job arrays):
// shard K of N takes the plan's models whose position (seq) is K modulo N. Deterministic and
// independent of timing, so the shards of one plan are disjoint and together the whole plan,
// and `convfail test merge` puts them back into the campaign one run would have made.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/campaign_types.h"

namespace convfail::campaign {

struct Shard {
  int index = 0;            // K: 0 <= K < N
  int count = 0;            // N; 0 = not sharded (the whole plan)
  bool from_slurm = false;  // taken from SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT
  bool active() const { return count > 0; }
  bool holds(int seq) const { return !active() || seq % count == index; }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// Shards beyond this are refused (a plan of a million models in 10,000 shards is 100 each).
inline constexpr int kMaxShards = 10000;

// "K/N" (decimal, 0 <= K < N <= kMaxShards). UsageError naming `what` otherwise.
Shard parse_shard(const std::string& text, const std::string& what = "--shard");

// K/N from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT when both are set (the array must be
// 0..N-1, as `sbatch --array=0-15` gives), nullopt when neither is. UsageError when only one is
// set or a value is not a valid K/N. `getenv` is injectable for tests.
std::optional<Shard> shard_from_slurm(const char* (*getenv_fn)(const char*) = nullptr);

// The models of `plan` that shard `s` runs (all of them when it is not active), in plan order.
std::vector<ModelTask> shard_plan(const std::vector<ModelTask>& plan, const Shard& s);

// What a shard's campaign records in its configuration (config_json "shard"): {"index": K,
// "count": N, "plan_models": the whole plan's size}. The rest of the configuration is the whole
// plan's, so shards of different plans never have equal configurations but for "shard".
nlohmann::json shard_json(const Shard& s, std::size_t plan_models);

}  // namespace convfail::campaign
