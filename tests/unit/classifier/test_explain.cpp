#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "classifier/engine.h"
#include "classifier/explain.h"
#include "classifier/extract.h"
#include "classifier/rules_fixture.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::classifier;
using convfail::test::rules_from;
using convfail::test::taxonomy;

namespace {}  // namespace

TEST_CASE("explain_json: labels, scores, evidence with spans, and facts as one object") {
  Engine engine(rules_from(R"({
    "settings": {"smoothing": 1.0, "symptom": {"min_confidence": 0.5, "margin": 0.5}},
    "rules": [
      {"id": "crash.word", "dimension": "symptom", "label": "crash", "fields": ["title"],
       "patterns": ["\\berror\\b"], "weight": 3},
      {"id": "ext", "dimension": "cause", "label": "incompatibility", "subtype": "external",
       "fields": ["body"], "patterns": ["is not supported"], "weight": 2}
    ]})",
                           "explainhash"),
                taxonomy());
  IssueText issue;
  issue.repo = "pytorch/pytorch";
  issue.number = 42;
  issue.title = "export error on unflatten";
  issue.body =
      "Exporting the operator aten::unflatten to ONNX opset version 13 is not supported.\n";

  nlohmann::json j = explain_json(engine, issue);
  // One document that survives a round trip through text.
  CHECK(nlohmann::json::parse(j.dump()) == j);
  CHECK(j["repo"] == "pytorch/pytorch");
  CHECK(j["number"] == 42);
  CHECK(j["title"] == issue.title);
  CHECK(j["rules_hash"] == "explainhash");
  CHECK(j["rules"] == 2);
  REQUIRE(j["dimensions"].is_object());
  CHECK(j["dimensions"].size() == taxonomy().dimensions().size());

  // symptom: crash 3 -> confidence 3 / (3 + 1) = 0.75; the evidence points at "error" in the title.
  const auto& symptom = j["dimensions"]["symptom"];
  CHECK(symptom["label"] == "crash");
  CHECK(symptom["subtype"].is_null());
  CHECK(symptom["abstained"] == false);
  CHECK(symptom["confidence"].get<double>() == doctest::Approx(0.75));
  CHECK(symptom["scores"] == nlohmann::json{{"crash", 3.0}});
  REQUIRE(symptom["evidence"].size() == 1);
  const auto& e = symptom["evidence"][0];
  CHECK(e["rule"] == "crash.word");
  CHECK(e["label"] == "crash");
  CHECK(e["subtype"].is_null());
  CHECK(e["weight"].get<double>() == doctest::Approx(3.0));
  CHECK(e["field"] == "title");
  CHECK(e["field_index"] == 0);
  CHECK(e["span_start"] == 7);
  CHECK(e["span_end"] == 12);
  CHECK(e["matched_text"] == "error");

  // cause: the subtype is carried on the label and on the evidence.
  const auto& cause = j["dimensions"]["cause"];
  CHECK(cause["label"] == "incompatibility");
  CHECK(cause["subtype"] == "external");
  REQUIRE(cause["evidence"].size() == 1);
  CHECK(cause["evidence"][0]["rule"] == "ext");
  CHECK(cause["evidence"][0]["subtype"] == "external");
  CHECK(cause["evidence"][0]["matched_text"] == "is not supported");
  auto start = cause["evidence"][0]["span_start"].get<std::size_t>();
  auto end = cause["evidence"][0]["span_end"].get<std::size_t>();
  CHECK(end - start == std::string("is not supported").size());

  // stage: nothing fired -> abstains as its abstain label, empty score table and evidence.
  const auto& stage = j["dimensions"]["stage"];
  CHECK(stage["abstained"] == true);
  CHECK(stage["label"] == "not_distinguishable");
  CHECK(stage["confidence"] == 0);
  CHECK(stage["scores"] == nlohmann::json::object());
  CHECK(stage["evidence"] == nlohmann::json::array());

  // facts: the extracted (kind, value) pairs, in extraction order.
  Extractions facts = extract_facts(segment_issue(issue));
  REQUIRE(j["facts"].size() == facts.size());
  for (std::size_t i = 0; i < facts.size(); ++i) {
    CHECK(j["facts"][i]["kind"] == facts[i].first);
    CHECK(j["facts"][i]["value"] == facts[i].second);
  }
  CHECK(j["facts"].dump().find(R"({"kind":"aten_op","value":"aten::unflatten"})") !=
        std::string::npos);
  CHECK(j["facts"].dump().find(R"({"kind":"opset","value":"13"})") != std::string::npos);
}

TEST_CASE("explain_json: an abstained dimension without a label has label null") {
  Engine engine(rules_from(R"({
    "settings": {"symptom": {"margin": 0.5}},
    "rules": [
      {"id": "a", "dimension": "symptom", "label": "crash", "fields": ["title"],
       "patterns": ["boom"], "weight": 1},
      {"id": "b", "dimension": "symptom", "label": "hang", "fields": ["title"],
       "patterns": ["stuck"], "weight": 1}]})",
                           "explainhash"),
                taxonomy());
  IssueText issue;
  issue.repo = "onnx/tensorflow-onnx";
  issue.number = 7;
  issue.title = "boom then stuck";
  nlohmann::json j = explain_json(engine, issue);
  const auto& symptom = j["dimensions"]["symptom"];
  // A 1 vs 1 tie fails the 0.5 margin: abstained with no label, both scores shown.
  CHECK(symptom["abstained"] == true);
  CHECK(symptom["label"].is_null());
  CHECK(symptom["scores"] == nlohmann::json{{"crash", 1.0}, {"hang", 1.0}});
  CHECK(symptom["evidence"].size() == 2);
  CHECK(j["repo"] == "onnx/tensorflow-onnx");
  CHECK(j["number"] == 7);
}
