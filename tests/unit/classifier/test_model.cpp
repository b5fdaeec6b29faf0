#include <doctest/doctest.h>

#include "classifier/model.h"

using namespace convfail;
using namespace convfail::classifier;

namespace {

// 24 examples in 4 CV groups: a rule feature fires on all of them (the rules say "a"
// everywhere) while the word w:yes marks label "b". Labels alternate a, b.
TrainingData separable() {
  TrainingData data;
  for (int i = 0; i < 24; ++i) {
    bool b = i % 2 == 1;
    data.examples.push_back({"rule:x", "rules:d=a", b ? "w:yes" : "w:no", "w:common"});
    data.labels["d"].push_back(b ? "b" : "a");
    data.rules_labels["d"].push_back("a");
    data.cv_group.push_back(i % 4);
  }
  return data;
}

}  // namespace

TEST_CASE("model: the words fix the rule's mistake, cross-validated and on new issues") {
  TrainedModel m = fit_model(separable(), FitOptions{});
  REQUIRE(m.dimensions.size() == 1);
  const DimensionModel& d = m.dimensions[0];
  CHECK(d.labels == std::vector<std::string>{"a", "b"});
  CHECK(d.n == 24);
  CHECK(d.rules_kappa == doctest::Approx(0.0));
  CHECK(d.rules_accuracy == doctest::Approx(0.5));
  CHECK(d.cv_kappa.at(d.lambda) == doctest::Approx(1.0));
  CHECK(d.cv_accuracy == doctest::Approx(1.0));
  Prediction p = predict(m, d, {"rule:x", "rules:d=a", "w:yes", "w:common", "w:unseen"});
  CHECK(p.label == "b");
  CHECK(p.probability > 0.5);
  CHECK(p.probabilities.at("a") + p.probabilities.at("b") == doctest::Approx(1.0));
  REQUIRE(!p.top_features.empty());
  CHECK(p.top_features[0].first == "w:yes");
  CHECK(predict(m, d, {"rule:x", "rules:d=a", "w:no"}).label == "a");
}

TEST_CASE("model: deterministic, vocabulary capped, rare words dropped") {
  TrainingData data = separable();
  data.examples[0].insert("w:once");  // in one example only
  TrainedModel a = fit_model(data, FitOptions{});
  TrainedModel b = fit_model(data, FitOptions{});
  CHECK(a.features == b.features);
  CHECK(a.dimensions[0].weights == b.dimensions[0].weights);
  CHECK(a.index.count("w:once") == 0);
  CHECK(a.index.count("rule:x") == 1);
  FitOptions small;
  small.max_features = 2;
  CHECK(fit_model(data, small).features.size() == 2);
}

TEST_CASE("model: examples without a label are left out of that dimension") {
  TrainingData data = separable();
  data.labels["d"][0] = "";
  data.labels["e"] = std::vector<std::string>(24, "");
  data.labels["e"][1] = "z";
  TrainedModel m = fit_model(data, FitOptions{});
  REQUIRE(m.dimension("d"));
  CHECK(m.dimension("d")->n == 23);
  REQUIRE(m.dimension("e"));
  CHECK(m.dimension("e")->n == 1);
  CHECK(predict(m, *m.dimension("e"), {"w:no"}).label == "z");
}

TEST_CASE("model: confidence calibrated on out-of-fold predictions, not in-sample") {
  // Labels independent of the words: in-sample the model fits the noise and is sure of itself,
  // out of fold it is right about half the time; the stored calibration must say so.
  TrainingData data;
  std::uint64_t state = 99;
  auto next = [&state](int mod) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((state >> 33) % static_cast<std::uint64_t>(mod));
  };
  for (int i = 0; i < 80; ++i) {
    data.examples.push_back({"w:a" + std::to_string(next(12)), "w:b" + std::to_string(next(12)),
                             "w:c" + std::to_string(next(12))});
    data.labels["d"].push_back(next(2) ? "x" : "y");
    data.cv_group.push_back(i % 4);
  }
  FitOptions options;
  options.lambdas = {0.001, 0.0003};
  TrainedModel m = fit_model(data, options);
  const DimensionModel& d = m.dimensions.at(0);
  REQUIRE(d.calibration_method == "isotonic");
  CHECK(d.cv_ece <= d.cv_raw_ece);
  double raw = 0, calibrated = 0;
  for (const auto& ex : data.examples) {
    Prediction p = predict(m, d, ex);
    raw += p.probability / 80;
    calibrated += d.calibration.apply(p.probability) / 80;
  }
  CHECK(raw > 0.75);         // in-sample: sure
  CHECK(calibrated < 0.65);  // out of fold it is right about half the time
  CHECK(d.cv_selective.points.size() == 4);
}
