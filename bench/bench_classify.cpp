// Classifies 100,000 issues (the shared jajal2024 issues repeated, or synthetic ones when the
// shared set is missing) with the shipped rules and prints issues/s and MB/s of field text,
// beside a baseline that runs every rule pattern as its own RE2 over each field (measured on a
// 10,000-issue slice in the same run), and the ratio. Times are CPU seconds on one core.
// Ends with the JSON line {"bench": "classify", "ratio": RE2::Set MB/s / baseline MB/s, ...}.
//
//   bench_classify [--issues 100000] [--quick]     (--quick: 3,000 issues, baseline on 300)
#include <re2/re2.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bench/figures.h"
#include "classifier/engine.h"

using namespace convfail;

// CPU time of this process: the machine is shared, so wall time would measure the neighbours.
struct Clock {
  using time_point = double;
  static double now() {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
  }
};

namespace {

std::vector<classifier::IssueText> base_issues() {
  std::vector<classifier::IssueText> out;
  std::ifstream in(std::string(CONVFAIL_SHARED_DIR) + "/datasets/jajal2024/issues.jsonl");
  std::string line;
  while (std::getline(in, line) && out.size() < 100000)
    out.push_back(classifier::issue_text_from_json(Json::parse(line)));
  if (!out.empty()) return out;
  std::fprintf(stderr, "shared dataset missing: synthetic issues\n");
  for (int i = 0; i < 200; ++i) {
    classifier::IssueText t;
    t.repo = i % 2 ? "pytorch/pytorch" : "onnx/tensorflow-onnx";
    t.number = i;
    t.title = "Export of model " + std::to_string(i) + " fails with an error";
    t.body =
        "When I convert my model it fails.\n\nTraceback (most recent call last):\n"
        "  File \"/usr/lib/python3/site-packages/torch/onnx/utils.py\", line " +
        std::to_string(100 + i) +
        ", in export\n    graph = _model_to_graph(model)\n"
        "RuntimeError: Exporting the operator foo_" +
        std::to_string(i) +
        " to ONNX opset version 11 is not supported.\n\n```python\nimport torch\n"
        "torch.onnx.export(model, x, 'm.onnx', opset_version=11)\n```\n"
        "The outputs are different from PyTorch when run in onnxruntime, dtype float64.";
    t.comments.push_back(
        {"someone", "MEMBER", "Please try a newer opset; shape inference may help."});
    out.push_back(std::move(t));
  }
  return out;
}

double seconds_since(double t0) {
  return Clock::now() - t0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = bench::quick_mode(argc, argv);
  std::size_t kIssues = quick ? 3000 : 100000;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--issues") && i + 1 < argc) {
      kIssues = static_cast<std::size_t>(std::atoll(argv[++i]));
    } else if (std::strcmp(argv[i], "--quick") != 0) {
      std::fprintf(stderr, "usage: bench_classify [--issues N] [--quick]\n");
      return 2;
    }
  }
  if (kIssues < 10) {
    std::fprintf(stderr, "bench_classify: --issues must be at least 10\n");
    return 2;
  }
  const std::size_t kBaselineIssues = std::max<std::size_t>(1, kIssues / 10);
  Taxonomy taxonomy = Taxonomy::load(std::string(CONVFAIL_SOURCE_DIR) + "/data");
  classifier::RuleSet rules =
      classifier::load_rules(std::string(CONVFAIL_SOURCE_DIR) + "/data/rules", taxonomy);
  std::vector<classifier::IssueText> base = base_issues();
  std::vector<classifier::Segments> segments;
  for (const auto& i : base) segments.push_back(classifier::segment_issue(i));
  classifier::Engine engine(rules, taxonomy);

  // 1. Segment + classify, 100,000 issues.
  std::size_t bytes = 0, labelled = 0;
  auto t0 = Clock::now();
  for (std::size_t n = 0; n < kIssues; ++n) {
    const classifier::IssueText& issue = base[n % base.size()];
    classifier::Segments s = classifier::segment_issue(issue);
    bytes += s.bytes();
    classifier::Classification c = engine.classify(issue, s);
    labelled += c.decisions.front().abstained ? 0 : 1;
  }
  double full = seconds_since(t0);

  // 2. Classify pre-segmented fields (the matching engine alone), 100,000 issues.
  t0 = Clock::now();
  std::size_t evidence = 0;
  for (std::size_t n = 0; n < kIssues; ++n)
    evidence += engine.classify(base[n % base.size()], segments[n % base.size()]).evidence.size();
  double engine_only = seconds_since(t0);

  // 3. Baseline: every pattern (and unless pattern) of every rule as its own RE2, one at a time
  // over each field it reads; matching only (no scoring), on a 10,000-issue slice.
  struct One {
    classifier::FieldKind field;
    std::unique_ptr<RE2> re;
  };
  std::vector<One> singles;
  for (const classifier::Rule& r : rules.rules)
    for (classifier::FieldKind f : r.fields) {
      for (const auto& p : r.patterns)
        singles.push_back({f, std::make_unique<RE2>(classifier::compiled_pattern(r, p))});
      for (const auto& p : r.unless)
        singles.push_back({f, std::make_unique<RE2>(classifier::compiled_pattern(r, p))});
    }
  std::size_t baseline_bytes = 0, baseline_hits = 0;
  t0 = Clock::now();
  for (std::size_t n = 0; n < kBaselineIssues; ++n) {
    const classifier::Segments& s = segments[n % base.size()];
    baseline_bytes += s.bytes();
    for (const classifier::Field& f : s.fields)
      for (const One& o : singles)
        if (o.field == f.kind && RE2::PartialMatch(f.text, *o.re)) ++baseline_hits;
  }
  double baseline = seconds_since(t0);

  double mb = bytes / 1e6;
  double full_mbs = mb / full, engine_mbs = mb / engine_only;
  double base_mbs = baseline_bytes / 1e6 / baseline;
  std::printf(
      "bench_classify: %zu rules, %zu distinct issues repeated to %zu (%.1f MB of field text)\n",
      rules.rules.size(), base.size(), kIssues, mb);
  std::printf("segment+classify   : %8.3f s  %9.0f issues/s  %7.1f MB/s  (symptom labelled %zu)\n",
              full, kIssues / full, full_mbs, labelled);
  std::printf("classify (RE2::Set): %8.3f s  %9.0f issues/s  %7.1f MB/s  (evidence rows %zu)\n",
              engine_only, kIssues / engine_only, engine_mbs, evidence);
  std::printf(
      "baseline one RE2 at a time (%zu issues, %zu patterns): %.3f s  %.0f issues/s  %.1f MB/s  "
      "(hits %zu)\n",
      kBaselineIssues, singles.size(), baseline, kBaselineIssues / baseline, base_mbs,
      baseline_hits);
  std::printf("ratio classify/baseline: %.1fx   segment+classify/baseline: %.1fx\n",
              engine_mbs / base_mbs, full_mbs / base_mbs);
  std::fflush(stdout);
  bench::print_figures("classify", engine_mbs / base_mbs,
                       "RE2::Set classify MB/s / one-RE2-at-a-time baseline MB/s (CPU time)", quick,
                       {{"rules", rules.rules.size()},
                        {"issues", kIssues},
                        {"distinct_issues", base.size()},
                        {"issues_per_s", kIssues / engine_only},
                        {"mb_per_s", engine_mbs},
                        {"segment_classify_issues_per_s", kIssues / full},
                        {"segment_classify_mb_per_s", full_mbs},
                        {"baseline_issues", kBaselineIssues},
                        {"baseline_mb_per_s", base_mbs},
                        {"ratio_segment_classify", full_mbs / base_mbs}});
  return 0;
}
