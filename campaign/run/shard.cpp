#include "campaign/run/shard.h"

#include <cstdlib>

#include "core/error.h"
#include "core/text.h"

namespace convfail::campaign {
namespace {

const char* system_getenv(const char* name) {
  return std::getenv(name);
}

}  // namespace

Shard parse_shard(const std::string& text, const std::string& what) {
  auto slash = text.find('/');
  std::optional<std::int64_t> k, n;
  if (slash != std::string::npos) {
    k = parse_int64(text.substr(0, slash));
    n = parse_int64(text.substr(slash + 1));
  }
  if (!k || !n || *k < 0)
    throw UsageError(what + ": expected K/N (shard K of N, 0 <= K < N), got " +
                     quoted_excerpt(text));
  if (*n < 1 || *n > kMaxShards)
    throw UsageError(what + ": N must be 1 to " + std::to_string(kMaxShards) + ", got " +
                     std::to_string(*n));
  if (*k >= *n)
    throw UsageError(what + ": K must be below N (shards are numbered 0 to N-1), got " +
                     std::to_string(*k) + "/" + std::to_string(*n));
  Shard s;
  s.index = static_cast<int>(*k);
  s.count = static_cast<int>(*n);
  return s;
}

std::optional<Shard> shard_from_slurm(const char* (*getenv_fn)(const char*)) {
  if (!getenv_fn) getenv_fn = system_getenv;
  const char* id = getenv_fn("SLURM_ARRAY_TASK_ID");
  const char* count = getenv_fn("SLURM_ARRAY_TASK_COUNT");
  if (!id && !count) return std::nullopt;
  if (!id || !count)
    throw UsageError(std::string("SLURM_ARRAY_TASK_") + (id ? "COUNT" : "ID") +
                     " is not set but SLURM_ARRAY_TASK_" + (id ? "ID" : "COUNT") +
                     " is: give --shard K/N");
  Shard s = parse_shard(std::string(id) + "/" + count,
                        "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT (an array 0..N-1)");
  s.from_slurm = true;
  return s;
}

std::vector<ModelTask> shard_plan(const std::vector<ModelTask>& plan, const Shard& s) {
  std::vector<ModelTask> out;
  for (const auto& t : plan)
    if (s.holds(t.seq)) out.push_back(t);
  return out;
}

nlohmann::json shard_json(const Shard& s, std::size_t plan_models) {
  return {{"index", s.index}, {"count", s.count}, {"plan_models", plan_models}};
}

}  // namespace convfail::campaign
