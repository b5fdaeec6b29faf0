#include <doctest/doctest.h>

#include "classifier/rule_eval.h"

using namespace convfail;
using namespace convfail::classifier;

namespace {
classifier::GoldItem item(const std::string& repo, std::int64_t number, int fold,
                          const std::string& symptom) {
  classifier::GoldItem g;
  g.repo = repo;
  g.number = number;
  g.fold = fold;
  g.values["symptom"] = symptom;
  return g;
}
}  // namespace

TEST_CASE("eval --by-rule: precision, base rate and lift by hand, folds and unknown issues") {
  classifier::GoldSet gold;
  gold.has_folds = true;
  gold.items = {item("a/b", 1, 0, "crash"), item("a/b", 2, 0, "crash"),
                item("a/b", 3, 0, "wrong_model"), item("a/b", 4, 0, "crash"),
                item("a/b", 5, 4, "wrong_model")};
  std::vector<classifier::RuleFiring> firings = {
      {"s.crash.tb", "symptom", "crash", "A/B", 1},  // repo matched without case
      {"s.crash.tb", "symptom", "crash", "a/b", 2},
      {"s.crash.tb", "symptom", "crash", "a/b", 3},
      {"s.crash.tb", "symptom", "crash", "a/b", 5},  // fold 4: left out below
      {"s.crash.tb", "symptom", "crash", "x/y", 1},  // not a gold issue
      {"s.wrong.ort", "symptom", "wrong_model", "a/b", 3},
      {"c.cause.x", "cause", "incompatibility", "a/b", 1}};  // gold has no cause: not counted
  auto rules = classifier::evaluate_rules(firings, gold, {0});
  REQUIRE(rules.size() == 2);
  // Sorted by dimension, then label: crash before wrong_model.
  CHECK(rules[0].rule_id == "s.crash.tb");
  CHECK(rules[0].fired == 3);
  CHECK(rules[0].agreed == 2);
  CHECK(rules[0].precision == doctest::Approx(2.0 / 3));
  CHECK(rules[0].base_rate == doctest::Approx(3.0 / 4));  // 3 of the 4 fold-0 issues are crashes
  CHECK(rules[0].lift == doctest::Approx((2.0 / 3) / 0.75));
  CHECK(rules[1].rule_id == "s.wrong.ort");
  CHECK(rules[1].fired == 1);
  CHECK(rules[1].precision == doctest::Approx(1.0));
  CHECK(rules[1].lift == doctest::Approx(4.0));

  // All folds: the fold-4 wrong_model issue now counts against s.crash.tb.
  auto all = classifier::evaluate_rules(firings, gold, {});
  CHECK(all[0].fired == 4);
  CHECK(all[0].agreed == 2);
  CHECK(all[0].base_rate == doctest::Approx(3.0 / 5));

  std::string text = classifier::rule_evals_text(rules);
  CHECK(text.find("s.wrong.ort") != std::string::npos);
  CHECK(text.find("one issue") != std::string::npos);
  CHECK(text.find("below chance") != std::string::npos);  // s.crash.tb: lift 0.89
  CHECK(classifier::rule_evals_json(rules)[0]["agreed"] == 2);
}
