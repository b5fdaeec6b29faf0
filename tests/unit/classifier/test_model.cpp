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
