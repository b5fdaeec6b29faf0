// Execution evidence: stored repro verdicts as rule-like votes for symptom and stage.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "classifier/engine.h"
#include "classifier/execution_evidence.h"
#include "classifier/explain.h"
#include "classifier/model.h"
#include "classifier/predict.h"
#include "classifier/rules_fixture.h"

using namespace convfail;
using namespace convfail::classifier;
using convfail::test::rules_from;
using convfail::test::taxonomy;

namespace {

ExecutionVerdict export_crash(std::int64_t id = 12) {
  return {id, "script", "crash_reproduced", "export",
          "unsupportedoperatorerror: exporting the operator 'aten::foo' to onnx opset version n is "
          "not supported"};
}

std::set<std::string> keys(const std::vector<ExecutionEvidence>& ev) {
  std::set<std::string> out;
  for (const auto& e : ev) out.insert(e.key + ":" + e.dimension + "=" + e.label);
  return out;
}

// One rule: "wrong" in the title says wrong_model (weight 1).
const char* kRules = R"({
  "settings": {"smoothing": 1.0, "symptom": {"min_confidence": 0.3, "margin": 0.2},
               "stage": {"min_confidence": 0.2, "margin": 0.05}},
  "rules": [
    {"id": "wm.word", "dimension": "symptom", "label": "wrong_model", "fields": ["title"],
     "patterns": ["\\bwrong\\b"], "weight": 1}
  ]})";

IssueText wrong_issue() {
  IssueText issue;
  issue.repo = "pytorch/pytorch";
  issue.number = 5;
  issue.title = "export gives a wrong result";
  issue.body = "see the script";
  return issue;
}

}  // namespace

TEST_CASE("execution evidence: which verdicts say what") {
  ExecutionWeights w = default_execution_weights();
  CHECK(keys(execution_evidence({export_crash()}, w)) ==
        std::set<std::string>{"export_crash:symptom=crash",
                              "unsupported_operator:stage=node_conversion"});
  CHECK(keys(execution_evidence(
            {{1, "script", "crash_reproduced", "session", "could not find an implementation"}},
            w)) == std::set<std::string>{"model_fails:symptom=wrong_model"});
  CHECK(keys(execution_evidence({{1, "model", "crash_reproduced", "parse", "bad protobuf"}}, w)) ==
        std::set<std::string>{"model_fails:symptom=wrong_model", "serialization:stage=export"});
  CHECK(keys(execution_evidence({{1, "script", "wrong_output_reproduced", "compare", "output y"}},
                                w)) == std::set<std::string>{"wrong_output:symptom=wrong_model"});
  CHECK(keys(execution_evidence({{1, "script", "crash_reproduced", "export", "timeout"}}, w)) ==
        std::set<std::string>{"export_timeout:symptom=hang"});
  CHECK(keys(execution_evidence({{1, "script", "crash_reproduced", "export",
                                  "runtimeerror: tracer cannot infer type of output"}},
                                w)) ==
        std::set<std::string>{"export_crash:symptom=crash", "tracing:stage=load_model"});
  // Nothing reproduced, nothing runnable, a crash of the module itself: no evidence.
  CHECK(execution_evidence({{1, "script", "not_reproduced", "", ""}}, w).empty());
  CHECK(execution_evidence({{1, "script", "not_runnable", "script", "missing module: x"}}, w)
            .empty());
  CHECK(
      execution_evidence({{1, "script", "not_runnable", "eager", "eager run failed"}}, w).empty());
  // Each kind once per issue: two crashing models give one piece of evidence, the first's.
  auto two = execution_evidence({{3, "model", "crash_reproduced", "run", "a"},
                                 {4, "model", "crash_reproduced", "session", "b"}},
                                w);
  REQUIRE(two.size() == 1);
  CHECK(two[0].verdict.repro_run_id == 3);
  CHECK(two[0].summary ==
        "confirmed by re-execution: crash in ONNX Runtime, signature a (model run 3)");
}

TEST_CASE("execution evidence: weights calibrated on training verdicts") {
  ExecutionWeights defaults = default_execution_weights();
  CHECK(defaults.by_key.at("export_crash").weight == doctest::Approx(std::log(0.9 / 0.1)));
  // 20 training issues: `crash` of the first 16 (no verdicts) are crash, the rest wrong_model;
  // the last 4 have an export crash and are labeled `verdict_label`.
  auto weights = [](int crash, const std::string& verdict_label) {
    std::vector<std::vector<ExecutionVerdict>> verdicts(20);
    std::map<std::string, std::vector<std::string>> gold;
    for (int i = 0; i < 20; ++i) {
      gold["symptom"].push_back(i < 16 ? (i < crash ? "crash" : "wrong_model") : verdict_label);
      if (i >= 16) verdicts[i] = {export_crash(i)};
    }
    return calibrate_execution_weights(verdicts, gold);
  };
  ExecutionWeights agree = weights(6, "crash");
  const ExecutionWeight& a = agree.by_key.at("export_crash");
  CHECK(agree.issues == 4);
  CHECK(a.n == 4);
  CHECK(a.agreed == 4);
  // precision (4 + 4 * 0.9) / 8 = 0.95; base rate (10 + 1) / (20 + 2 labels + 1), smoothed
  CHECK(a.base == doctest::Approx(11.0 / 23.0));
  CHECK(a.weight == doctest::Approx(std::log(0.95 / 0.05) - std::log(11.0 / 12.0)));
  CHECK(a.weight > defaults.by_key.at("export_crash").weight);
  ExecutionWeights disagree = weights(14, "wrong_model");
  const ExecutionWeight& d = disagree.by_key.at("export_crash");
  CHECK(d.agreed == 0);
  CHECK(d.base == doctest::Approx(15.0 / 23.0));
  CHECK(d.weight == 0);  // precision 0.45 below the base rate: no longer evidence
  CHECK(keys(execution_evidence({export_crash()}, disagree)) ==
        std::set<std::string>{"unsupported_operator:stage=node_conversion"});
  // Kept with the model: a JSON round trip keeps every weight.
  ExecutionWeights back = execution_weights_from_json(execution_weights_json(agree));
  CHECK(back.issues == 4);
  CHECK(back.by_key.at("export_crash").weight == doctest::Approx(a.weight));
}

TEST_CASE("execution evidence moves the rules' decision and explain shows it") {
  Engine engine(rules_from(kRules), taxonomy());
  IssueText issue = wrong_issue();
  ExplainContext context;
  context.verdicts = {export_crash()};

  nlohmann::json j = explain_json(engine, issue, context);
  const auto& symptom = j["dimensions"]["symptom"];
  CHECK(symptom["label"] == "wrong_model");  // the rules on the text
  CHECK(symptom["classified"]["label"] == "crash");
  CHECK(symptom["classified"]["predictor"] == "rules");
  CHECK(symptom["classified"]["without_execution"] == "wrong_model");
  REQUIRE(symptom["execution"].size() == 1);
  CHECK(symptom["execution"][0]["kind"] == "export_crash");
  CHECK(symptom["execution"][0]["repro_run_id"] == 12);
  CHECK(symptom["execution"][0]["summary"].get<std::string>().rfind(
            "confirmed by re-execution: crash in torch.onnx.export, signature "
            "unsupportedoperatorerror",
            0) == 0);
  const auto& stage = j["dimensions"]["stage"];
  CHECK(stage["abstained"] == true);  // no stage rule fired
  CHECK(stage["classified"]["label"] == "node_conversion");

  std::string text = explain_issue(engine, issue, false, context);
  CHECK(text.find("execution evidence:") != std::string::npos);
  CHECK(text.find("confirmed by re-execution: crash in torch.onnx.export") != std::string::npos);
  CHECK(text.find("classify: crash by rules") != std::string::npos);
  CHECK(text.find("the text alone: wrong_model") != std::string::npos);

  // Without verdicts nothing changes and no classify line is added.
  nlohmann::json plain = explain_json(engine, issue);
  CHECK(plain["dimensions"]["symptom"]["classified"]["label"] == "wrong_model");
  CHECK(plain["dimensions"]["symptom"]["execution"].empty());
  CHECK(explain_issue(engine, issue, false).find("classify:") == std::string::npos);
}

TEST_CASE("execution evidence moves the model's prediction by its weight in log-odds") {
  Engine engine(rules_from(kRules), taxonomy());
  IssueText issue = wrong_issue();
  Segments segments = segment_issue(issue);
  Classification c = engine.classify(issue, segments);
  // A model that reads "wrong" as wrong_model two times out of three.
  TrainingData data;
  for (int i = 0; i < 60; ++i) {
    data.examples.push_back({"w:wrong"});
    data.labels["symptom"].push_back(i % 3 ? "wrong_model" : "crash");
    data.cv_group.push_back(i % 4);
  }
  FitOptions fit;
  fit.lambdas = {0.01};
  fit.balanced = false;
  TrainedModel model = fit_model(data, fit);
  PredictorOverride use_model = {{"symptom", "model"}};
  std::vector<ExecutionEvidence> ev =
      execution_evidence({export_crash()}, default_execution_weights());

  auto symptom = [&](const std::vector<ExecutionEvidence>& e) {
    for (DimensionResult& r : predict_issue(engine, segments, c, &model, use_model, e))
      if (r.decision.dimension == "symptom") return r;
    FAIL("no symptom");
    return DimensionResult{};
  };
  DimensionResult without = symptom({});
  CHECK(without.predictor == "model");
  CHECK(without.decision.label == "wrong_model");
  double p_crash = without.scores["model"]["probabilities"]["crash"].get<double>();
  CHECK(p_crash == doctest::Approx(1.0 / 3).epsilon(0.05));
  DimensionResult with = symptom(ev);
  CHECK(with.decision.label == "crash");
  CHECK(with.without_execution == "wrong_model");
  // odds(crash) * 9 (weight log 9): 0.5 * 9 = 4.5 -> p = 4.5 / 5.5 (uncalibrated model)
  double odds = p_crash / (1 - p_crash) * 9;
  CHECK(with.decision.confidence == doctest::Approx(odds / (1 + odds)).epsilon(0.01));
  CHECK(with.scores["execution"][0]["label"] == "crash");
  CHECK(with.scores["without_execution"] == "wrong_model");
}
