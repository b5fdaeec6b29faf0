#include <doctest/doctest.h>

#include <string>

#include "classifier/engine.h"
#include "classifier/rules_fixture.h"
#include "core/error.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::classifier;
using convfail::test::rules_from;
using convfail::test::taxonomy;

namespace {

// The error message of parsing `text` as a rule file named f.json ("" when it loads).
std::string load_error(const std::string& text) {
  classifier::RuleSet set;
  try {
    classifier::parse_rules_text(text, "f.json", taxonomy(), set);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

classifier::IssueText issue(const std::string& title, const std::string& body = "") {
  classifier::IssueText i;
  i.repo = "pytorch/pytorch";
  i.number = 1;
  i.title = title;
  i.body = body;
  return i;
}

}  // namespace

TEST_CASE("rules: loading errors name file:rule-id: reason") {
  CHECK(load_error("{\"rules\": [ // comment\n]}") == "");
  CHECK(load_error("{\"rules\": [").rfind("f.json:?: not valid JSON", 0) == 0);
  CHECK(load_error(R"([{"id": "r1", "dimension": "symptom", "label": "explosion",
                       "fields": ["title"], "patterns": ["x"]}])") ==
        "f.json:r1: unknown symptom label \"explosion\"");
  CHECK(load_error(R"([{"id": "r2", "dimension": "mood", "label": "crash",
                       "fields": ["title"], "patterns": ["x"]}])") ==
        "f.json:r2: unknown dimension \"mood\"");
  CHECK(load_error(R"([{"id": "r3", "dimension": "symptom", "label": "crash",
                       "fields": ["title"], "patterns": ["(unclosed"]}])")
            .rfind("f.json:r3: bad pattern \"(unclosed\": ", 0) == 0);
  CHECK(load_error(R"([{"id": "r4", "dimension": "symptom", "label": "crash",
                       "fields": ["footer"], "patterns": ["x"]}])")
            .rfind("f.json:r4: unknown field \"footer\"", 0) == 0);
  CHECK(load_error(R"([{"id": "r5", "dimension": "cause", "label": "typo", "subtype": "node",
                       "fields": ["title"], "patterns": ["x"]}])") ==
        "f.json:r5: unknown subtype \"node\" for typo");
  CHECK(load_error(R"([{"id": "r6", "dimension": "symptom", "label": "crash", "fields": ["title"],
                       "patterns": ["x"]}, {"id": "r6", "dimension": "symptom", "label": "crash",
                       "fields": ["title"], "patterns": ["y"]}])") ==
        "f.json:r6: duplicate rule id");
  CHECK(load_error(R"([{"id": "r7", "dimension": "symptom", "label": "crash",
                       "fields": ["title"]}])") == "f.json:r7: no \"patterns\"");
  CHECK(load_error(R"([{"id": "r8", "dimension": "symptom", "label": "crash", "fields": ["title"],
                       "patterns": ["x"], "wieght": 2}])") == "f.json:r8: unknown key \"wieght\"");
  CHECK(load_error(R"({"settings": {"symptom": {"min_confidence": "high"}}})") ==
        "f.json:settings: symptom.min_confidence must be a number");
}

TEST_CASE("rules: the shipped rule set loads and its hash follows the content") {
  test::TempDir dir;
  std::string rule = R"([{"id": "a", "dimension": "symptom", "label": "crash", "fields": ["title"],
                          "patterns": ["boom"]}])";
  dir.write("a.json", rule);
  classifier::RuleSet one = classifier::load_rules(dir.path().string(), taxonomy());
  CHECK(one.hash.size() == 16);
  CHECK(classifier::load_rules(dir.path().string(), taxonomy()).hash == one.hash);
  dir.write("a.json", rule + " ");
  CHECK(classifier::load_rules(dir.path().string(), taxonomy()).hash != one.hash);
  classifier::RuleSet shipped = classifier::load_rules(test::data_dir() + "/rules", taxonomy());
  CHECK(shipped.rules.size() > 10);
  CHECK_THROWS_AS(classifier::load_rules(dir.file("nowhere"), taxonomy()), UserError);
}

TEST_CASE("engine: weighted scores, margin, confidence and abstention") {
  classifier::Engine engine(rules_from(R"({
    "settings": {"smoothing": 1.0, "symptom": {"min_confidence": 0.5, "margin": 0.5},
                 "stage": {"min_confidence": 0.5}},
    "rules": [
      {"id": "crash.tb", "dimension": "symptom", "label": "crash", "fields": ["traceback"],
       "patterns": ["torch/onnx/"], "weight": 2},
      {"id": "crash.word", "dimension": "symptom", "label": "crash", "fields": ["title", "body"],
       "patterns": ["\\berror\\b"], "weight": 1},
      {"id": "wrong.ort", "dimension": "symptom", "label": "wrong_model", "fields": ["body"],
       "patterns": ["onnxruntime"], "weight": 2, "unless": ["no onnxruntime"]},
      {"id": "ext", "dimension": "cause", "label": "incompatibility", "subtype": "external",
       "fields": ["error_line"], "patterns": ["not supported"], "weight": 1},
      {"id": "stage.export", "dimension": "stage", "label": "export", "fields": ["title"],
       "patterns": ["protobuf"], "weight": 0.5}
    ]})"),
                            taxonomy());
  std::string tb =
      "Traceback (most recent call last):\n  File \"/p/torch/onnx/utils.py\", line 1, in f\n"
      "RuntimeError: op is not supported";

  // crash: 2 (traceback) + 1 (title "error") = 3; confidence 3 / (3 + 1) = 0.75.
  classifier::Classification c = engine.classify(issue("export error", tb));
  const classifier::Decision* s = c.decision("symptom");
  REQUIRE(s);
  CHECK_FALSE(s->abstained);
  CHECK(*s->label == "crash");
  CHECK(s->scores.at("crash") == doctest::Approx(3.0));
  CHECK(s->confidence == doctest::Approx(0.75));
  const classifier::Decision* cause = c.decision("cause");
  CHECK(*cause->label == "incompatibility");
  CHECK(*cause->subtype == "external");
  // Stage: nothing fired -> abstains as its abstain label with confidence 0.
  const classifier::Decision* stage = c.decision("stage");
  CHECK(stage->abstained);
  CHECK(*stage->label == "not_distinguishable");
  CHECK(stage->confidence == 0);

  // Evidence carries rule, field, span and text.
  bool found = false;
  for (const auto& e : c.evidence) {
    if (e.rule_id != "crash.tb") continue;
    found = true;
    CHECK(e.field == classifier::FieldKind::kTraceback);
    CHECK(e.matched_text == "torch/onnx/");
    CHECK(e.span_end - e.span_start == e.matched_text.size());
  }
  CHECK(found);

  // crash 1 vs wrong_model 2 -> margin 1 clears 0.5, but confidence 2/(3+1) = 0.5 just passes.
  c = engine.classify(issue("error", "runs in onnxruntime"));
  CHECK(*c.decision("symptom")->label == "wrong_model");
  CHECK(c.decision("symptom")->confidence == doctest::Approx(0.5));
  // crash 3 vs wrong_model 2: margin 1 ok, confidence 3/6 = 0.5 -> crash.
  c = engine.classify(issue("error", "runs in onnxruntime\n" + tb));
  CHECK(*c.decision("symptom")->label == "crash");
  // Only the title word: confidence 1/2 = 0.5, margin 1 -> labelled.
  c = engine.classify(issue("error"));
  CHECK(*c.decision("symptom")->label == "crash");
  // A tie (2 vs 2 after the unless vetoes nothing) fails the margin -> abstain, no label.
  c = engine.classify(issue("x", "onnxruntime\n" + tb.substr(0, tb.rfind('\n'))));
  CHECK(c.decision("symptom")->scores.at("crash") == doctest::Approx(2));
  CHECK(c.decision("symptom")->scores.at("wrong_model") == doctest::Approx(2));
  CHECK(c.decision("symptom")->abstained);
  CHECK_FALSE(c.decision("symptom")->label.has_value());
  // `unless` vetoes the rule.
  c = engine.classify(issue("x", "no onnxruntime here"));
  CHECK(c.decision("symptom")->scores.count("wrong_model") == 0);
  // Stage: 0.5 / 1.5 = 0.33 < 0.5 -> abstain although a rule fired.
  c = engine.classify(issue("protobuf"));
  CHECK(c.decision("stage")->abstained);
  CHECK(c.decision("stage")->confidence == doctest::Approx(1.0 / 3));
}

TEST_CASE("engine: converter-specific rules and case sensitivity") {
  classifier::Engine engine(rules_from(R"([
      {"id": "tf.only", "dimension": "symptom", "label": "crash", "fields": ["title"],
       "patterns": ["boom"], "converters": ["tf2onnx"]},
      {"id": "case", "dimension": "symptom", "label": "hang", "fields": ["title"],
       "patterns": ["Stuck"], "case_sensitive": true, "weight": 3}])"),
                            taxonomy());
  CHECK(engine.classify(issue("boom")).decision("symptom")->abstained);
  classifier::IssueText tf = issue("boom");
  tf.repo = "onnx/tensorflow-onnx";
  CHECK(*engine.classify(tf).decision("symptom")->label == "crash");
  CHECK(engine.classify(issue("stuck")).decision("symptom")->abstained);
  CHECK(*engine.classify(issue("Stuck")).decision("symptom")->label == "hang");
}

TEST_CASE("engine: an any-text prior fires on non-blank fields, without a span") {
  // "\\S" patterns are checked outside the RE2::Set; they must fire where the regex would. A
  // prior is evidence of no text in particular: an empty span at 0 and no matched text, so that
  // no view marks the field's first letter (#28 item 12: ">>t<<orch").
  classifier::Engine engine(rules_from(R"([
    {"id": "prior", "dimension": "symptom", "label": "crash", "fields": ["title", "body"],
     "weight": 1, "patterns": ["\\S"]},
    {"id": "vetoed", "dimension": "symptom", "label": "wrong_model", "fields": ["title"],
     "weight": 1, "patterns": ["\\S"], "unless": ["skip me"]}
  ])"),
                            taxonomy());
  classifier::Classification c = engine.classify(issue("  \xC3\xA9t\xC3\xA9 export", " \n "));
  int prior = 0;
  for (const auto& e : c.evidence) {
    if (e.rule_id != "prior") continue;
    ++prior;
    CHECK(e.field == classifier::FieldKind::kTitle);  // the blank body does not count
    CHECK(e.span_start == 0);
    CHECK(e.span_end == 0);
    CHECK(e.matched_text.empty());
  }
  CHECK(prior == 1);
  CHECK(c.decision("symptom")->scores.count("wrong_model") == 1);
  c = engine.classify(issue("please skip me"));
  CHECK(c.decision("symptom")->scores.count("wrong_model") == 0);
  c = engine.classify(issue("   "));
  CHECK(c.decision("symptom")->scores.empty());
}
