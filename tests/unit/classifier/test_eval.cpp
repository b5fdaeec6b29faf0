#include <doctest/doctest.h>

#include "classifier/evaluation.h"
#include "core/error.h"
#include "labeling_fixture.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::classifier;
using convfail::test::taxonomy;

TEST_CASE("eval: coverage, covered accuracy, kappa and macro-F1 by hand") {
  std::vector<std::pair<std::string, std::optional<std::string>>> pairs = {
      {"crash", "crash"},
      {"crash", "crash"},
      {"crash", "crash"},
      {"crash", std::nullopt},
      {"wrong_model", "wrong_model"},
      {"wrong_model", "crash"}};
  classifier::DimensionEval d = classifier::evaluate_dimension(taxonomy(), "symptom", pairs);
  CHECK(d.n == 6);
  CHECK(d.covered == 5);
  CHECK(d.coverage == doctest::Approx(5.0 / 6));
  CHECK(d.all.accuracy == doctest::Approx(4.0 / 6));
  CHECK(d.covered_accuracy == doctest::Approx(0.8));
  // Covered: p_o = 0.8, p_e = 0.6*0.8 + 0.4*0.2 = 0.56 -> kappa = 0.24 / 0.44.
  CHECK(d.covered_kappa == doctest::Approx(0.24 / 0.44));
  // All six, abstention as its own category: p_o = 4/6, p_e = (4/6)(4/6) + (2/6)(1/6) = 0.5.
  CHECK(d.all.kappa.kappa == doctest::Approx(1.0 / 3));
  // crash P = R = 3/4 -> F1 0.75; wrong_model P = 1, R = 1/2 -> F1 2/3. Abstention excluded.
  CHECK(d.macro_f1 == doctest::Approx((0.75 + 2.0 / 3) / 2));
  CHECK(d.all.per_label.at(classifier::kAbstained).predicted == 1);
}

TEST_CASE("eval: stage abstains as not_distinguishable") {
  classifier::DimensionEval d =
      classifier::evaluate_dimension(taxonomy(), "stage",
                                     {{"node_conversion", "not_distinguishable"},
                                      {"not_distinguishable", "not_distinguishable"},
                                      {"load_model", "load_model"}});
  CHECK(d.coverage == doctest::Approx(1.0 / 3));
  CHECK(d.covered_accuracy == doctest::Approx(1.0));
  CHECK(d.all.accuracy == doctest::Approx(2.0 / 3));
}

TEST_CASE("eval: gold CSV with quotes, folds and label names, errors name file:line") {
  test::TempDir dir;
  auto path = dir.write("g.csv",
                        "repo,number,fold,symptom,cause,subtype,stage,title\n"
                        "a/b,1,0,Crash,Incompatability,External,Tracer,\"a, \"\"quoted\"\"\n"
                        "title\"\n"
                        "a/b,2,4,wrong_model,type_problem,node,node_conversion,plain\n");
  classifier::GoldSet g = classifier::load_gold_file(path, taxonomy());
  CHECK(g.has_folds);
  REQUIRE(g.items.size() == 2);
  CHECK(g.items[0].values.at("symptom") == "crash");
  CHECK(g.items[0].values.at("cause") == "incompatibility");
  CHECK(g.items[0].values.at("subtype") == "external");
  CHECK(g.items[0].values.at("stage") == "load_model");
  CHECK(*g.items[1].fold == 4);
  CHECK(g.items[1].number == 2);

  auto bad = dir.write("bad.csv", "repo,number,symptom\na/b,1,crash\na/b,2,explodes\n");
  try {
    classifier::load_gold_file(bad, taxonomy());
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) == bad + ":3: unknown symptom label \"explodes\"");
  }
  CHECK_THROWS_AS(classifier::load_gold_file(
                      dir.write("n.csv", "repo,number,symptom\na/b,x,crash\n"), taxonomy()),
                  UserError);
  CHECK(classifier::parse_fold_list("0-3") == std::set<int>{0, 1, 2, 3});
  CHECK(classifier::parse_fold_list("4, 1") == std::set<int>{1, 4});
  CHECK_THROWS_AS(classifier::parse_fold_list("a"), UsageError);
  CHECK_THROWS_AS(classifier::parse_fold_list("3-1"), UsageError);
}

TEST_CASE("eval: ties of a calibrated confidence are broken by the predictor's stored rank") {
  // Four issues with the same (calibrated) confidence 0.7; the ranks classify stored say which
  // are surer. Issues 1 and 2 are right, 3 and 4 wrong: the most confident half is the right half
  // only when the ranks order them.
  test::LabelingFixture f(4);
  f.db->exec("INSERT INTO classifier_runs(id, rules_hash) VALUES (1, 'h')");
  for (int i = 0; i < 4; ++i) {
    Stmt st(*f.db,
            "INSERT INTO classifier_labels(run_id, issue_id, dimension, label, confidence, "
            "scores_json) VALUES (1, ?, 'symptom', ?, 0.7, ?)");
    st.bind(1, f.issues[i]).bind(2, i < 2 ? "crash" : "wrong_model");
    st.bind(3, nlohmann::json{{"rank", 0.9 - 0.1 * i}}.dump());
    st.run();
  }
  GoldSet gold;
  gold.source = "g";
  for (int n = 1; n <= 4; ++n)
    gold.items.push_back({"acme/conv", n, std::nullopt, {{"symptom", "crash"}}});
  auto half = [&] {
    for (const DimensionEval& d : evaluate_run(*f.db, taxonomy(), gold, 1, {}).dimensions)
      if (d.dimension == "symptom") return d.selective.points.at(1);
    FAIL("no symptom");
    return CoveragePoint{};
  };
  CHECK(half().percent == 50);
  CHECK(half().accuracy == doctest::Approx(1.0));
  // Reversed ranks: the wrong half first.
  f.db->exec(
      "UPDATE classifier_labels SET scores_json = json_object('rank', 1 - "
      "json_extract(scores_json, '$.rank'))");
  CHECK(half().accuracy == doctest::Approx(0.0));
}
