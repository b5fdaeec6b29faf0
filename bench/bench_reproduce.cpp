// Models per second over the ONNX node suite: the warm runner (one Node/ORT process for all
// models) against one runner process per model (the baseline), measured in the same run.
// Ends with the JSON line {"bench": "reproduce", "ratio": warm models/s / cold models/s, ...}.
//
//   bench_reproduce [N] [--quick]     (N models, default 200; --quick: 5)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "bench/figures.h"
#include "exec/ort_runner.h"
#include "repro/suite.h"

using namespace convfail;
using namespace convfail::repro;
using namespace convfail::exec;

namespace {

struct Figures {
  int models = 0, pass = 0, starts = 0;
  double seconds = 0;
};

Figures run(bool warm, const std::string& suite, const std::vector<std::string>& cases) {
  exec::RunnerOptions ro;
  ro.warm = warm;
  ro.model_roots = {suite};  // as `reproduce --suite`: one sandbox for all cases
  exec::OrtRunner runner(ro);
  ReproOptions o;
  o.timeout_seconds = 30;
  auto t0 = std::chrono::steady_clock::now();
  Figures f;
  for (const auto& c : cases) {
    ++f.models;
    if (suite_outcome(reproduce_test_case(runner, c, o)) == "pass") ++f.pass;
  }
  f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  f.starts = runner.process_starts() + runner.checker_starts();
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  if (int code = check_model_main(argc, argv); code >= 0) return code;  // the checker child
  std::string suite = "/usr/share/libonnx-testdata/data/node";
  const bool quick = convfail::bench::quick_mode(argc, argv);
  int limit = quick ? 5 : 200;  // the cold baseline pays ~0.25 s per model
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) continue;
    char* end = nullptr;
    long n = std::strtol(argv[i], &end, 10);
    if (*end || n < 1 || n > 100000) {
      std::fprintf(stderr, "usage: bench_reproduce [N] [--quick]\n");
      return 2;
    }
    limit = static_cast<int>(n);
  }
  // "bench skipped:" marks the quick test skipped (bench/check_quick.cmake).
  if (!std::filesystem::is_directory(suite)) {
    std::printf("bench skipped: %s missing, nothing measured\n", suite.c_str());
    return 0;
  }
  std::string why;
  if (!exec::OrtRunner().version(&why)) {
    std::printf("bench skipped: the ONNX Runtime runner is unavailable (%s)\n", why.c_str());
    return 0;
  }
  auto all = list_suite_cases(suite);
  // Every k-th case, so the sample spans the alphabet (operators) rather than its start.
  std::vector<std::string> cases;
  size_t step = limit > 0 && static_cast<size_t>(limit) < all.size() ? all.size() / limit : 1;
  for (size_t i = 0; i < all.size() && (limit <= 0 || cases.size() < static_cast<size_t>(limit));
       i += step)
    cases.push_back(all[i]);
  Figures warm = run(true, suite, cases);
  Figures cold = run(false, suite, cases);
  std::printf("bench_reproduce: %d node-suite models (of %zu)\n", warm.models, all.size());
  std::printf("  warm runner:          %7.2f s  %7.1f models/s  (%d pass, %d starts)\n",
              warm.seconds, warm.models / warm.seconds, warm.pass, warm.starts);
  std::printf("  process per model:    %7.2f s  %7.1f models/s  (%d pass, %d starts)\n",
              cold.seconds, cold.models / cold.seconds, cold.pass, cold.starts);
  double ratio = (warm.models / warm.seconds) / (cold.models / cold.seconds);
  std::printf("  ratio warm/cold:      %7.2fx\n", ratio);
  std::fflush(stdout);
  convfail::bench::print_figures("reproduce", ratio,
                                 "warm runner models/s / process per model models/s", quick,
                                 {{"models", warm.models},
                                  {"suite_cases", all.size()},
                                  {"warm_seconds", warm.seconds},
                                  {"warm_pass", warm.pass},
                                  {"warm_starts", warm.starts},
                                  {"cold_seconds", cold.seconds},
                                  {"cold_pass", cold.pass},
                                  {"cold_starts", cold.starts}});
  // Both runs saw the same models: the same verdicts, or the warm runner changed an outcome.
  return warm.pass == cold.pass && warm.models > 0 ? 0 : 1;
}
