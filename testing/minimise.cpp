#include "testing/minimise.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.h"
#include "exec/child_files.h"
#include "exec/scratch_dir.h"
#include "testing/campaign_store.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace convfail::testing {

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

bool parse_synthetic_name(const std::string& name, int* nodes, std::int64_t* seed) {
  long long s = 0;
  int n = 0;
  char tail = 0;
  if (std::sscanf(name.c_str(), "synthetic-n%d-s%lld%c", &n, &s, &tail) != 2) return false;
  *nodes = n;
  *seed = s;
  return true;
}

MinimiseSummary minimise_groups(Db& db, std::int64_t campaign, const OracleOptions& oracle_opts,
                                const MinimiseOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  MinimiseSummary s;
  struct G {
    std::int64_t id;
    std::string outcome, signature, name;
    int nodes;
  };
  std::vector<G> groups;
  auto st = db.prepare(
      "SELECT g.id, g.outcome, g.signature, m.name, COALESCE(m.nodes, 0), g.minimised_nodes FROM "
      "campaign_groups g JOIN campaign_models m ON m.campaign_id = g.campaign_id AND m.seq = "
      "g.representative_seq WHERE g.campaign_id = ? ORDER BY g.size DESC, g.id");
  st.bind(1, campaign);
  while (st.step()) {
    if (options.group && st.int64(0) != options.group) continue;
    if (!options.group && !st.is_null(5)) continue;
    groups.push_back(
        {st.int64(0), st.text(1), st.text(2), st.text(3), static_cast<int>(st.int64(4))});
  }
  if (options.group && groups.empty())
    throw UserError("no group " + std::to_string(options.group) + " in campaign " +
                    std::to_string(campaign));
  s.groups = static_cast<int>(groups.size());
  if (groups.empty()) return s;
  Oracle oracle(oracle_opts);
  exec::ScratchDir work("minimise");
  for (const auto& g : groups) {
    if (options.time_budget > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >
            options.time_budget)
      break;
    ModelTask task;
    task.source = "synthetic";
    task.perturb = options.perturb;
    if (!parse_synthetic_name(g.name, &task.nodes, &task.seed)) {
      ++s.skipped;  // torchvision and script models have no spec to cut
      continue;
    }
    ModelResult first = oracle.run(task);
    if (first.outcome != g.outcome || first.signature != g.signature ||
        !exec::is_child_file(first.model_dir, "spec.json")) {
      ++s.skipped;  // does not fail the same way again (flaky): nothing to keep
      continue;
    }
    fs::path spec = fs::path(work.path()) / ("spec_" + std::to_string(g.id) + ".json");
    std::ofstream(spec, std::ios::binary)
        << exec::read_child_file(first.model_dir, "spec.json", kMaxProgramBytes).value_or("");
    std::vector<int> all;
    for (int i = 0; i < task.nodes; ++i) all.push_back(i);
    std::map<std::vector<int>, bool> cache;
    auto fails = [&](const std::vector<int>& keep) {
      auto it = cache.find(keep);
      if (it != cache.end()) return it->second;
      ModelTask t;
      t.source = "synthetic";
      t.seed = task.seed;
      t.spec_path = spec.string();
      t.keep = keep;
      t.perturb = options.perturb;
      ModelResult r = oracle.run(t);
      bool same = r.outcome == g.outcome && r.signature == g.signature;
      cache[keep] = same;
      return same;
    };
    int tests = 0;
    std::vector<int> keep = ddmin(all, fails, options.budget, &tests);
    ModelTask final_task;
    final_task.source = "synthetic";
    final_task.seed = task.seed;
    final_task.spec_path = spec.string();
    final_task.keep = keep;
    final_task.perturb = options.perturb;
    ModelResult r = oracle.run(final_task);
    if (r.outcome != g.outcome || r.signature != g.signature) {
      ++s.skipped;
      continue;
    }
    std::string sha = store_model_files(r, options.store_dir);
    std::string program =
        exec::read_child_file(r.model_dir, "program.py", kMaxProgramBytes).value_or("");
    {
      Transaction tx(db);
      auto up = db.prepare(
          "UPDATE campaign_groups SET minimised_nodes = ?, minimised_sha256 = ?, "
          "minimised_program = ?, minimised_graph_json = ? WHERE id = ?");
      up.bind(1, static_cast<std::int64_t>(keep.size()));
      up.bind(2, sha.empty() ? std::optional<std::string>() : std::optional<std::string>(sha));
      up.bind(3, program);
      if (r.ops.empty())
        up.bind_null(4);
      else
        up.bind(4, r.graph_json().dump());
      up.bind(5, g.id);
      up.run();
      tx.commit();
    }
    ++s.minimised;
    s.ratios.push_back(static_cast<double>(keep.size()) / std::max(1, task.nodes));
    if (options.progress)
      std::fprintf(stderr, "test: group %lld minimised %d -> %zu operators (%d oracle runs)\n",
                   static_cast<long long>(g.id), task.nodes, keep.size(), tests + 2);
  }
  return s;
}

}  // namespace convfail::testing
