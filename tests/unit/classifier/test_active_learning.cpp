#include <doctest/doctest.h>

#include "classifier/active_learning.h"
#include "core/error.h"

using namespace convfail;
using namespace convfail::classifier;

namespace {

// A separable synthetic set: 5 labels, each announced by one of its 6 key words (every example
// carries exactly one key word, so a model knows a label only through the key words it has seen
// labeled), plus 2 of 40 noise words. Deterministic (a small LCG).
TrainingData synthetic(int n) {
  TrainingData data;
  std::uint64_t state = 12345;
  auto next = [&state](int mod) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((state >> 33) % static_cast<std::uint64_t>(mod));
  };
  for (int i = 0; i < n; ++i) {
    int label = i % 5;
    std::set<std::string> ex = {"w:key" + std::to_string(label) + "_" + std::to_string(next(6)),
                                "w:noise" + std::to_string(next(40)),
                                "w:noise" + std::to_string(next(40))};
    data.examples.push_back(ex);
    data.labels["d"].push_back("l" + std::to_string(label));
    data.cv_group.push_back(0);
  }
  return data;
}

// 20 examples: w:yes marks label "b", w:no label "a".
TrainingData yes_no() {
  TrainingData data;
  for (int i = 0; i < 20; ++i) {
    bool yes = i % 2 == 0;
    data.examples.push_back({yes ? "w:yes" : "w:no", "w:common"});
    data.labels["d"].push_back(yes ? "b" : "a");
    data.cv_group.push_back(i % 4);
  }
  return data;
}

SimulationOptions options(std::size_t batch, int seeds) {
  SimulationOptions o;
  o.batch = batch;
  o.seeds = seeds;
  o.fit.lambdas = {0.001};
  o.fit.iterations = 200;
  o.fit.min_doc_freq = 1;
  return o;
}

SimulationSplit split(std::size_t pool, std::size_t held_out) {
  SimulationSplit s;
  for (std::size_t i = 0; i < pool; ++i) s.pool.push_back(i);
  for (std::size_t i = pool; i < pool + held_out; ++i) s.held_out.push_back(i);
  return s;
}

}  // namespace

TEST_CASE("active learning: the simulated learning curve rises monotonically in expectation") {
  TrainingData data = synthetic(200);
  SimulationResult r = simulate_annotation(data, {split(150, 50)}, options(5, 8));
  CHECK(r.pool == 150);
  CHECK(r.held_out == 50);
  CHECK(r.seeds == 8);
  REQUIRE(r.curve.size() == 30);
  CHECK(r.curve.front().labels == 5);
  CHECK(r.curve.back().labels == 150);
  const double final_kappa = r.final_kappa.at("d");
  CHECK(final_kappa > 0.95);
  // Both orders end on the same model: every pool label.
  CHECK(r.curve.back().random.at("d") == doctest::Approx(final_kappa));
  CHECK(r.curve.back().uncertain.at("d") == doctest::Approx(final_kappa));
  // Few labels know few key words.
  CHECK(r.curve.front().random.at("d") < final_kappa - 0.3);
  CHECK(r.curve.front().uncertain.at("d") < final_kappa - 0.3);
  // Averaged over seeds, more labels never cost more than noise.
  for (std::size_t b = 1; b < r.curve.size(); ++b) {
    CAPTURE(b);
    CHECK(r.curve[b].random.at("d") >= r.curve[b - 1].random.at("d") - 0.03);
    CHECK(r.curve[b].uncertain.at("d") >= r.curve[b - 1].uncertain.at("d") - 0.03);
  }
  // Asking about the examples the model is unsure of finds the unseen key words sooner.
  CHECK(r.uncertain_reaches.at("d") < r.random_reaches.at("d"));
  CHECK(r.uncertain_reaches.at("d") <= 100);
}

TEST_CASE("active learning: deterministic, cross-split pooling, refusals") {
  TrainingData data = synthetic(60);
  SimulationSplit a = split(30, 30), b;
  b.pool = a.held_out;
  b.held_out = a.pool;
  SimulationResult r1 = simulate_annotation(data, {a, b}, options(10, 2));
  SimulationResult r2 = simulate_annotation(data, {a, b}, options(10, 2));
  CHECK(r1.held_out == 60);
  CHECK(r1.pool == 30);
  REQUIRE(r1.curve.size() == 3);
  for (std::size_t i = 0; i < r1.curve.size(); ++i) {
    CHECK(r1.curve[i].random.at("d") == r2.curve[i].random.at("d"));
    CHECK(r1.curve[i].uncertain.at("d") == r2.curve[i].uncertain.at("d"));
  }
  CHECK(simulation_json(r1)["dimensions"]["d"]["final_kappa"].get<double>() ==
        r1.final_kappa.at("d"));
  SimulationSplit overlap = a;
  overlap.held_out.push_back(0);
  CHECK_THROWS_AS(simulate_annotation(data, {overlap}, options(10, 1)), UserError);
  SimulationOptions bad = options(10, 1);
  bad.measure = "variance";
  CHECK_THROWS_AS(simulate_annotation(data, {a}, bad), UsageError);
}

TEST_CASE("active learning: uncertainty ranks the ambiguous issue first") {
  TrainingData data = yes_no();
  FitOptions fit;
  fit.lambdas = {0.001};
  TrainedModel m = fit_model(data, fit);
  std::vector<std::set<std::string>> candidates = {
      {"w:yes", "w:common"}, {"w:yes", "w:no", "w:common"}, {"w:no"}, {"w:common"}};
  for (const std::string measure : {"margin", "entropy"}) {
    CAPTURE(measure);
    double clear = uncertainty(m, candidates[0], measure);
    double mixed = uncertainty(m, candidates[1], measure);
    CHECK(clear >= 0);
    CHECK(clear < 0.3);
    CHECK(mixed > 0.7);
    CHECK(mixed <= 1.0);
    std::vector<std::size_t> order = rank_by_uncertainty(m, candidates, measure);
    REQUIRE(order.size() == 4);
    CHECK(order[3] != 1);
    CHECK((order[0] == 1 || order[0] == 3));
  }
  CHECK_THROWS_AS(uncertainty(m, candidates[0], "variance"), UsageError);
}

TEST_CASE("active learning: background refit scores candidates off the calling thread") {
  TrainingData data = yes_no();
  FitOptions fit;
  fit.lambdas = {0.001};
  BackgroundRefit refit;
  CHECK_FALSE(refit.running());
  CHECK_FALSE(refit.take().has_value());
  BackgroundRefit::Candidates candidates = {{7, {"w:yes"}}, {8, {"w:yes", "w:no"}}, {9, {"w:no"}}};
  REQUIRE(refit.start(data, candidates, "margin", fit));
  CHECK_FALSE(refit.start(data, candidates, "margin", fit));  // one at a time
  refit.wait();
  CHECK_FALSE(refit.running());
  std::optional<UncertaintyScores> scores = refit.take();
  REQUIRE(scores.has_value());
  REQUIRE(scores->size() == 3);
  CHECK(scores->at(8) > scores->at(7));
  CHECK(scores->at(8) > scores->at(9));
  CHECK_FALSE(refit.take().has_value());  // once
  CHECK(order_by_uncertainty({7, 8, 9, 10}, *scores).front() == 8);
  CHECK(order_by_uncertainty({7, 8, 9, 10}, *scores).back() == 10);  // no score: last
  // The same scores as ranking on this thread.
  TrainedModel m = fit_model(data, fit);
  CHECK(scores->at(7) == doctest::Approx(uncertainty(m, {"w:yes"}, "margin")));
  // A failing refit rethrows on take.
  REQUIRE(refit.start(data, candidates, "variance", fit));
  refit.wait();
  CHECK_THROWS_AS(refit.take(), UsageError);
}
