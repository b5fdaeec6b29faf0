#include <doctest/doctest.h>

#include "labeling/agreement.h"

using namespace convfail;
using namespace convfail::labeling;

namespace {
labeling::LabelPairs repeat(
    std::initializer_list<std::tuple<const char*, const char*, int>> cells) {
  labeling::LabelPairs out;
  for (auto [a, b, n] : cells)
    for (int i = 0; i < n; ++i) out.emplace_back(a, b);
  return out;
}
}  // namespace

TEST_CASE("Cohen's kappa against a hand-computed 2x2 table") {
  // 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15.
  // p_o = 35/50 = 0.7; p_e = 0.5*0.6 + 0.5*0.4 = 0.5; kappa = 0.4.
  auto pairs = repeat({{"yes", "yes", 20}, {"yes", "no", 5}, {"no", "yes", 10}, {"no", "no", 15}});
  labeling::KappaResult k = labeling::cohen_kappa(pairs);
  CHECK(k.n == 50);
  CHECK(k.observed == doctest::Approx(0.7));
  CHECK(k.expected == doctest::Approx(0.5));
  CHECK(k.kappa == doctest::Approx(0.4));
  // Asymptotic SE (Fleiss, Cohen & Everitt 1969), worked by hand:
  // A = 0.4*(1-1.1*0.6)^2 + 0.3*(1-0.9*0.6)^2 = 0.10972
  // B = 0.36 * (0.1*(0.6+0.5)^2 + 0.2*(0.4+0.5)^2) = 0.10188;  C = (0.4-0.5*0.6)^2 = 0.01
  // var = (A + B - C) / (50 * 0.25) = 0.016128 -> se = 0.12700
  CHECK(k.se == doctest::Approx(0.12700).epsilon(0.001));
  CHECK(k.ci_low == doctest::Approx(0.4 - 1.96 * k.se));
  CHECK(k.ci_high == doctest::Approx(0.4 + 1.96 * k.se));
}

TEST_CASE("Cohen's kappa: perfect and chance agreement") {
  CHECK(labeling::cohen_kappa(repeat({{"a", "a", 3}, {"b", "b", 2}})).kappa ==
        doctest::Approx(1.0));
  CHECK(labeling::cohen_kappa(repeat({{"a", "a", 4}})).kappa == doctest::Approx(1.0));
  // Independent raters: a/a 1, a/b 1, b/a 1, b/b 1 -> p_o = 0.5 = p_e -> 0.
  CHECK(labeling::cohen_kappa(repeat({{"a", "a", 1}, {"a", "b", 1}, {"b", "a", 1}, {"b", "b", 1}}))
            .kappa == doctest::Approx(0.0));
  CHECK(labeling::cohen_kappa({}).n == 0);
}

TEST_CASE("Fleiss' kappa against the Wikipedia worked example (0.210)") {
  // 10 subjects, 14 raters, 5 categories (Fleiss 1971 example as tabulated on Wikipedia).
  int table[10][5] = {{0, 0, 0, 0, 14}, {0, 2, 6, 4, 2}, {0, 0, 3, 5, 6}, {0, 3, 9, 2, 0},
                      {2, 2, 8, 1, 1},  {7, 7, 0, 0, 0}, {3, 2, 6, 3, 0}, {2, 5, 3, 2, 2},
                      {6, 5, 2, 1, 0},  {0, 2, 2, 3, 7}};
  std::vector<std::vector<std::string>> ratings;
  for (auto& row : table) {
    std::vector<std::string> item;
    for (int c = 0; c < 5; ++c)
      for (int k = 0; k < row[c]; ++k) item.push_back("c" + std::to_string(c));
    ratings.push_back(item);
  }
  CHECK(labeling::fleiss_kappa(ratings) == doctest::Approx(0.210).epsilon(0.005));
  CHECK_THROWS(labeling::fleiss_kappa({{"a", "b"}, {"a"}}));
}

TEST_CASE("evaluate: accuracy, per-label precision/recall and macro-F1 by hand") {
  // gold a,a,a,b,b,c ; pred a,a,b,b,c,c
  labeling::LabelPairs p = {{"a", "a"}, {"a", "a"}, {"a", "b"}, {"b", "b"}, {"b", "c"}, {"c", "c"}};
  labeling::Evaluation e = evaluate(p);
  CHECK(e.accuracy == doctest::Approx(4.0 / 6));
  CHECK(e.per_label["a"].precision == doctest::Approx(1.0));
  CHECK(e.per_label["a"].recall == doctest::Approx(2.0 / 3));
  CHECK(e.per_label["b"].precision == doctest::Approx(0.5));
  CHECK(e.per_label["b"].recall == doctest::Approx(0.5));
  CHECK(e.per_label["c"].precision == doctest::Approx(0.5));
  CHECK(e.per_label["c"].recall == doctest::Approx(1.0));
  double f1a = 2 * 1.0 * (2.0 / 3) / (1.0 + 2.0 / 3), f1b = 0.5, f1c = 2 * 0.5 / 1.5;
  CHECK(e.macro_f1 == doctest::Approx((f1a + f1b + f1c) / 3));
  CHECK(e.matrix.counts.size() == 3);
}
