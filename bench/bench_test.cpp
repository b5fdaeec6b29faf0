// bench_test: models per second of `convfail test` on synthetic models, warm workers (one torch
// worker and one ONNX Runtime runner kept alive across models, what `test run` does) against a
// fresh worker and runner process per model (the baseline), same models, same run, one job. The
// plan is a filtered all-type one (`test run --dtypes all`'s default draw), its filter the pairs
// torch eager takes (the worker's support table: no matrix is measured here), or with --db F
// the working pairs of the support matrix stored in F for the pinned release at opset 16.
//   bench_test [--quick] [--nodes MIN-MAX:STEP] [--models N] [--cold N]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "bench/figures.h"
#include "campaign/run/oracle.h"
#include "campaign/run/plan.h"
#include "campaign/run/support_matrix.h"
#include "core/error.h"
#include "core/migrations.h"
#include "exec/sandbox.h"
#include "repro/reproduce.h"

using namespace convfail;
using namespace convfail::campaign;

namespace {

struct Figures {
  int models = 0;
  double seconds = 0;
  std::map<std::string, int> outcomes;
  std::map<std::string, double> stage_seconds;
};

Figures run(bool warm, const std::vector<ModelTask>& tasks, const OracleOptions& base) {
  OracleOptions o = base;
  o.warm = warm;
  Oracle oracle(o);
  if (warm) oracle.versions();  // the warm worker starts before the clock, as in a campaign
  Figures f;
  auto t0 = std::chrono::steady_clock::now();
  for (const auto& t : tasks) {
    ModelResult r = oracle.run(t);
    ++f.models;
    ++f.outcomes[r.outcome];
    for (auto& [k, v] : r.durations.items())
      if (v.is_number()) f.stage_seconds[k] += v.get<double>();
  }
  f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  if (int code = repro::check_model_main(argc, argv); code >= 0) return code;
  const bool quick = bench::quick_mode(argc, argv);
  CampaignConfig c;
  c.sources = {"synthetic"};
  c.models = quick ? 4 : 40;
  int cold_models = quick ? 2 : 6;
  std::string nodes = quick ? "15" : "15-100:5", db_path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") continue;
    if (i + 1 < argc && a == "--nodes") {
      nodes = argv[++i];
    } else if (i + 1 < argc && a == "--models") {
      c.models = std::atoi(argv[++i]);
    } else if (i + 1 < argc && a == "--cold") {
      cold_models = std::atoi(argv[++i]);
    } else if (i + 1 < argc && a == "--db") {
      db_path = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: bench_test [--quick] [--nodes R] [--models N] [--cold N] [--db F]\n");
      return 2;
    }
  }
  try {
    parse_nodes(nodes, &c);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_test: %s\n", e.what());
    return 2;
  }
  c.oracle.timeout_seconds = 120;
  std::string why;
  if (!exec::sandbox_available(&why)) {
    std::printf("bench skipped: no sandbox here (%s)\n", why.c_str());
    return 0;
  }
  c.oracle.dtypes = all_dtypes();
  std::string filter = "eager pairs";
  try {
    Oracle probe(c.oracle);
    nlohmann::json versions = probe.versions();
    int generator = 0;
    nlohmann::json pairs = nlohmann::json::object();
    for (const auto& op : parse_support_table(probe.support_table(), &generator))
      pairs[op.op] = op.eager;
    if (!db_path.empty()) {
      auto db = open_database(db_path);
      SupportVersions v{versions.value("torch", ""), versions.value("onnx", ""),
                        versions.value("onnxruntime", ""), generator};
      auto matrix = find_support_matrix(*db, v);
      if (!matrix) throw UserError("no support matrix in " + db_path + " for these versions");
      pairs = working_pairs(load_support_cells(*db, *matrix), 16, all_dtypes());
      filter = "stored matrix";
    }
    c.oracle.support = pairs;
  } catch (const std::exception& e) {
    std::printf("bench skipped: %s\n", e.what());
    return 0;
  }
  auto plan = make_plan(c, nlohmann::json::array());
  std::vector<ModelTask> cold_plan(plan.begin(),
                                   plan.begin() + std::min<std::size_t>(plan.size(), cold_models));
  Figures warm = run(true, plan, c.oracle);
  Figures cold = run(false, cold_plan, c.oracle);
  double warm_rate = warm.models / warm.seconds, cold_rate = cold.models / cold.seconds;
  std::printf("bench_test: synthetic models, all nine types, filtered (%s), nodes %s, 1 job\n",
              filter.c_str(), nodes.c_str());
  std::printf("  warm workers:        %3d models %7.1f s  %6.2f models/s\n", warm.models,
              warm.seconds, warm_rate);
  std::printf("  process per model:   %3d models %7.1f s  %6.2f models/s\n", cold.models,
              cold.seconds, cold_rate);
  nlohmann::json outcomes = warm.outcomes, stages = nlohmann::json::object();
  for (const auto& [k, v] : warm.stage_seconds) {
    stages[k] = v / std::max(1, warm.models);
    std::printf("  warm mean %-8s %.3f s/model\n", k.c_str(), v / std::max(1, warm.models));
  }
  bench::print_figures("test", warm_rate / cold_rate,
                       "warm models/s over process-per-model models/s", quick,
                       {{"warm_models_per_s", warm_rate},
                        {"cold_models_per_s", cold_rate},
                        {"warm_models", warm.models},
                        {"cold_models", cold.models},
                        {"nodes", nodes},
                        {"filter", filter},
                        {"outcomes", outcomes},
                        {"mean_stage_seconds", stages}});
  return 0;
}
