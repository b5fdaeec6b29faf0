#include "campaign/run/minimise.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "campaign/outcomes.h"
#include "campaign/run/oracle.h"
#include "campaign/store/campaign_store.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "exec/child_files.h"
#include "exec/scratch_dir.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace convfail::campaign {

constexpr std::uint64_t kMaxProgramBytes = 16 << 20;  // a spec or program of a synthetic model

std::vector<int> ddmin(const std::vector<int>& items,
                       const std::function<bool(const std::vector<int>&)>& fails, int budget,
                       int* tests) {
  std::vector<int> cur = items;
  std::size_t n = 2;
  int used = 0;
  while (cur.size() >= 2 && used < budget) {
    std::size_t chunk = (cur.size() + n - 1) / n;
    bool reduced = false;
    for (std::size_t start = 0; start < cur.size() && used < budget; start += chunk) {
      std::vector<int> cand;
      for (std::size_t i = 0; i < cur.size(); ++i)
        if (i < start || i >= start + chunk) cand.push_back(cur[i]);
      if (cand.empty()) continue;
      ++used;
      if (fails(cand)) {
        cur = cand;
        n = std::max<std::size_t>(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (n >= cur.size()) break;
      n = std::min(cur.size(), n * 2);
    }
  }
  if (tests) *tests = used;
  return cur;
}

namespace {

// A group to minimise: its key and its representative's seed and node count.
struct Target {
  std::int64_t id;
  std::string outcome, signature;
  int nodes;
  std::int64_t seed;
};

// The groups `options` asks for (one, or all not minimised yet), largest first; those whose
// representative is not a synthetic model (no spec to cut) counted in *skipped.
std::vector<Target> targets(Db& db, std::int64_t campaign, const MinimiseOptions& options,
                            int* skipped) {
  std::map<std::int64_t, StoredModel> models;
  for (auto& m : load_models(db, campaign, false)) models.emplace(m.seq, std::move(m));
  std::vector<Target> out;
  bool found = false;
  for (const StoredGroup& g : load_groups(db, campaign)) {
    if (options.group && g.id != options.group) continue;
    if (!options.group && g.minimised_nodes) continue;
    found = true;
    auto it = g.representative_seq ? models.find(*g.representative_seq) : models.end();
    if (it == models.end() || it->second.source != "synthetic" || !it->second.seed ||
        !it->second.nodes) {
      ++*skipped;  // torchvision and script models have no spec to cut
      continue;
    }
    out.push_back(
        {g.id, g.outcome, g.signature, static_cast<int>(*it->second.nodes), *it->second.seed});
  }
  if (options.group && !found)
    throw UserError("no group " + std::to_string(options.group) + " in campaign " +
                    std::to_string(campaign));
  return out;
}

// Minimises one group's model; true when a smaller model failing the same way was stored.
bool minimise_one(Db& db, Oracle& oracle, const Target& g, const MinimiseOptions& options,
                  const std::string& work, double* ratio, int* tests) {
  ModelTask task;
  task.source = "synthetic";
  task.perturb = options.perturb;
  task.nodes = g.nodes;
  task.seed = g.seed;
  ModelResult first = oracle.run(task);
  if (first.outcome != g.outcome || first.signature != g.signature ||
      !exec::is_child_file(first.model_dir, "spec.json"))
    return false;  // does not fail the same way again (flaky): nothing to keep
  fs::path spec = fs::path(work) / ("spec_" + std::to_string(g.id) + ".json");
  std::ofstream(spec, std::ios::binary)
      << exec::read_child_file(first.model_dir, "spec.json", kMaxProgramBytes).value_or("");
  std::vector<int> all;
  for (int i = 0; i < task.nodes; ++i) all.push_back(i);
  std::map<std::vector<int>, bool> cache;
  int runs = 1;  // the oracle runs of this group: the first above, the cuts, the last below
  auto cut = [&](const std::vector<int>& keep) {
    ++runs;
    ModelTask t;
    t.source = "synthetic";
    t.seed = task.seed;
    t.spec_path = spec.string();
    t.keep = keep;
    t.perturb = options.perturb;
    return oracle.run(t);
  };
  auto fails = [&](const std::vector<int>& keep) {
    // A run cut by a signal decides nothing: stop before ddmin takes it for an answer.
    if (interrupted()) throw Interrupted(interrupt_signal(), "interrupted while minimising");
    auto it = cache.find(keep);
    if (it != cache.end()) return it->second;
    ModelResult r = cut(keep);
    return cache[keep] = r.outcome == g.outcome && r.signature == g.signature;
  };
  // The budget bounds every oracle run of the group: the first and the last one included.
  std::vector<int> keep = ddmin(all, fails, std::max(0, options.budget - 2), tests);
  ModelResult r = cut(keep);
  if (interrupted()) throw Interrupted(interrupt_signal(), "interrupted while minimising");
  *tests = runs;
  if (r.outcome != g.outcome || r.signature != g.signature) return false;
  std::string sha = r.has_model ? store_model_files(r.model_dir, options.store_dir) : "";
  std::string program =
      exec::read_child_file(r.model_dir, "program.py", kMaxProgramBytes).value_or("");
  set_group_minimised(db, g.id, static_cast<std::int64_t>(keep.size()), sha, program,
                      r.ops.empty() ? json() : r.graph_json());
  *ratio = static_cast<double>(keep.size()) / std::max(1, task.nodes);
  if (options.progress)
    std::fprintf(stderr, "test: group %lld minimised %d -> %zu operators (%d oracle runs)\n",
                 static_cast<long long>(g.id), task.nodes, keep.size(), *tests);
  return true;
}

}  // namespace

std::size_t groups_to_minimise(Db& db, std::int64_t campaign) {
  int skipped = 0;
  return targets(db, campaign, MinimiseOptions{}, &skipped).size();
}

MinimiseSummary minimise_groups(Db& db, std::int64_t campaign, const OracleOptions& oracle_opts,
                                const MinimiseOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  MinimiseSummary s;
  std::vector<Target> groups = targets(db, campaign, options, &s.skipped);
  s.groups = static_cast<int>(groups.size()) + s.skipped;
  if (groups.empty()) return s;
  Oracle oracle(oracle_opts);
  exec::ScratchDir work("minimise");
  for (const auto& g : groups) {
    if (interrupted()) throw Interrupted(interrupt_signal(), "interrupted while minimising");
    if (options.time_budget > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >
            options.time_budget)
      break;
    double ratio = 0;
    int tests = 0;
    if (minimise_one(db, oracle, g, options, work.path(), &ratio, &tests)) {
      ++s.minimised;
      s.ratios.push_back(ratio);
    } else {
      ++s.skipped;
    }
  }
  return s;
}

}  // namespace convfail::campaign
