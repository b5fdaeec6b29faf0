#include <doctest/doctest.h>

#include "classifier/calibration.h"
#include "labeling/agreement.h"

using namespace convfail::classifier;

TEST_CASE("calibration: isotonic fit pools violators and ties, by hand") {
  // 0.1 right, 0.2 wrong violate the order: pooled to 0.5; 0.3 and 0.4 both right: one block.
  Calibration c = fit_isotonic({{0.2, false}, {0.1, true}, {0.4, true}, {0.3, true}});
  REQUIRE(c.blocks.size() == 2);
  CHECK(c.blocks[0].first == doctest::Approx(0.1));
  CHECK(c.blocks[0].second == doctest::Approx(0.5));
  CHECK(c.blocks[1].first == doctest::Approx(0.3));
  CHECK(c.blocks[1].second == doctest::Approx(1.0));
  CHECK(c.apply(0.05) == doctest::Approx(0.5));  // below the first block: its value
  CHECK(c.apply(0.25) == doctest::Approx(0.5));
  CHECK(c.apply(0.3) == doctest::Approx(1.0));
  CHECK(c.apply(0.99) == doctest::Approx(1.0));

  // A chain of violators: 0.2 right, 0.3 and 0.4 wrong pool to 1/3 above 0.1 wrong.
  Calibration chain = fit_isotonic({{0.1, false}, {0.2, true}, {0.3, false}, {0.4, false}});
  REQUIRE(chain.blocks.size() == 2);
  CHECK(chain.blocks[0].second == doctest::Approx(0.0));
  CHECK(chain.blocks[1].first == doctest::Approx(0.2));
  CHECK(chain.blocks[1].second == doctest::Approx(1.0 / 3));

  // Equal raw values are pooled before anything else.
  Calibration ties = fit_isotonic({{0.5, true}, {0.5, false}, {0.7, true}});
  REQUIRE(ties.blocks.size() == 2);
  CHECK(ties.blocks[0].second == doctest::Approx(0.5));
  CHECK(ties.apply(0.6) == doctest::Approx(0.5));

  Calibration none = fit_isotonic({});
  CHECK(none.empty());
  CHECK(none.apply(0.42) == doctest::Approx(0.42));
}

TEST_CASE("calibration: expected calibration error over 10 equal-width bins, by hand") {
  // Bin 0: mean 0.05, accuracy 0.5 -> 0.45 x 1/2; bin 9: mean 0.95, accuracy 1 -> 0.05 x 1/2.
  CHECK(expected_calibration_error({{0.05, false}, {0.05, true}, {0.95, true}, {0.95, true}}) ==
        doctest::Approx(0.25));
  CHECK(expected_calibration_error({{1.0, true}}) == doctest::Approx(0.0));  // 1.0 in the last bin
  CHECK(expected_calibration_error({{0.0, true}}) == doctest::Approx(1.0));
  // 0.1 and 0.19 share bin 1: mean 0.145, accuracy 0.5.
  CHECK(expected_calibration_error({{0.1, false}, {0.19, true}}) == doctest::Approx(0.355));
  // Two bins instead of ten: 0.3 and 0.45 share bin 0 (mean 0.375, accuracy 0.5).
  CHECK(expected_calibration_error({{0.3, false}, {0.45, true}}, 2) == doctest::Approx(0.125));
  CHECK(expected_calibration_error({}) == 0);
}

TEST_CASE("calibration: threshold reaching a target accuracy") {
  std::vector<std::pair<double, bool>> s = {
      {0.9, true}, {0.8, true}, {0.8, false}, {0.7, true}, {0.6, false}};
  // Kept accuracy at each threshold: 0.9 -> 1, 0.8 -> 2/3, 0.7 -> 3/4, 0.6 -> 3/5.
  CHECK(*threshold_for_accuracy(s, 0.75) == doctest::Approx(0.7));
  CHECK(*threshold_for_accuracy(s, 0.9) == doctest::Approx(0.9));
  CHECK(*threshold_for_accuracy(s, 0.6) == doctest::Approx(0.6));
  CHECK_FALSE(threshold_for_accuracy({{0.9, false}, {0.5, false}}, 0.5).has_value());
}

TEST_CASE("calibration: risk-coverage table, target threshold and hybrid kappa, by hand") {
  std::vector<ScoredLabel> items = {{"a", "a", 0.9, 0}, {"b", "b", 0.8, 0}, {"a", "b", 0.7, 0},
                                    {"b", "b", 0.6, 0}, {"a", "a", 0.5, 0}, {"b", "a", 0.4, 0},
                                    {"a", "b", 0.3, 0}, {"b", "a", 0.2, 0}};
  // Given in reverse: the order must come from the confidence.
  std::vector<ScoredLabel> reversed(items.rbegin(), items.rend());
  SelectiveEval s = selective_eval(reversed, 0.9, 0.25);
  CHECK(s.n == 8);
  REQUIRE(s.points.size() == 4);
  CHECK(s.points[0].percent == 25);
  CHECK(s.points[0].n == 2);
  CHECK(s.points[0].accuracy == doctest::Approx(1.0));
  CHECK(s.points[0].kappa == doctest::Approx(1.0));
  CHECK(s.points[0].threshold == doctest::Approx(0.8));
  // Top 4: 3 right; gold a2 b2, predicted a1 b3: p_e = (2+6)/16 = 0.5, kappa = 0.5.
  CHECK(s.points[1].n == 4);
  CHECK(s.points[1].accuracy == doctest::Approx(0.75));
  CHECK(s.points[1].kappa == doctest::Approx(0.5));
  CHECK(s.points[1].threshold == doctest::Approx(0.6));
  CHECK(s.points[3].n == 8);
  CHECK(s.points[3].accuracy == doctest::Approx(0.5));
  CHECK(s.points[3].threshold == doctest::Approx(0.2));
  REQUIRE(s.target_threshold.has_value());
  CHECK(*s.target_threshold == doctest::Approx(0.8));
  CHECK(s.target_coverage == doctest::Approx(0.25));
  CHECK(s.target_reached == doctest::Approx(1.0));
  // ECE: per item |accuracy - confidence| = .1 .2 .7 .4 .5 .4 .3 .2, sum 2.8 over 8.
  CHECK(s.ece == doctest::Approx(0.35));
  // Hybrid: the two least confident (0.3, 0.2) take gold: 6 of 8 right, both marginals 4/4.
  CHECK(s.human_labeled == 2);
  CHECK(s.hybrid_kappa == doctest::Approx(0.5));
  convfail::labeling::LabelPairs by_hand = {{"a", "a"}, {"b", "b"}, {"a", "b"}, {"b", "b"},
                                            {"a", "a"}, {"b", "a"}, {"a", "a"}, {"b", "b"}};
  CHECK(s.hybrid_kappa == doctest::Approx(convfail::labeling::cohen_kappa(by_hand).kappa));

  // Ties of confidence are broken by the raw confidence.
  SelectiveEval tie = selective_eval({{"a", "b", 0.5, 0.2}, {"a", "a", 0.5, 0.4}}, 0.9, {});
  CHECK(tie.points[1].n == 1);
  CHECK(tie.points[1].accuracy == doctest::Approx(1.0));
  CHECK_FALSE(tie.human_share.has_value());
  // Human share 1: every label is gold.
  CHECK(selective_eval(items, 0.9, 1.0).hybrid_kappa == doctest::Approx(1.0));
}

TEST_CASE("calibration: correct / wrong / abstained shares at confidence thresholds, by hand") {
  // 5 issues: right at 0.9 and 0.6, wrong at 0.8 and 0.3, one abstention (confidence 0.7).
  std::vector<ScoredLabel> items = {{"a", "a", 0.9, 0},
                                    {"b", "a", 0.8, 0},
                                    {"a", kAbstained, 0.7, 0},
                                    {"b", "b", 0.6, 0},
                                    {"a", "b", 0.3, 0}};
  SelectiveEval s = selective_eval(items, 0.9, {}, {0, 0.5, 0.65, 0.85, 0.95});
  REQUIRE(s.thresholds.size() == 5);
  auto row = [&](std::size_t i, double correct, double wrong, double abstained) {
    CAPTURE(i);
    CHECK(s.thresholds[i].correct == doctest::Approx(correct));
    CHECK(s.thresholds[i].wrong == doctest::Approx(wrong));
    CHECK(s.thresholds[i].abstained == doctest::Approx(abstained));
    CHECK(s.thresholds[i].correct + s.thresholds[i].wrong + s.thresholds[i].abstained ==
          doctest::Approx(1.0));
  };
  row(0, 0.4, 0.4, 0.2);  // everything answered but the abstention
  row(1, 0.4, 0.2, 0.4);  // 0.3 falls out
  row(2, 0.2, 0.2, 0.6);  // and 0.6
  row(3, 0.2, 0.0, 0.8);
  row(4, 0.0, 0.0, 1.0);
  CHECK(s.thresholds[2].threshold == doctest::Approx(0.65));
  CHECK(selective_eval(items, 0.9, {}).thresholds.empty());  // only when asked
}
