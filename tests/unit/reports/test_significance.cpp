#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "reports/significance.h"

using namespace convfail::reports;

TEST_CASE("significance: Fisher's exact test matches R's fisher.test") {
  // fisher.test(matrix(c(3, 1, 1, 3), 2))$p.value = 0.4857143 (the lady tasting tea).
  CHECK(fisher_exact_two_sided(3, 1, 1, 3) == doctest::Approx(0.4857143).epsilon(1e-6));
  // A perfect split of 10 and 10: 2 / choose(20, 10).
  CHECK(fisher_exact_two_sided(10, 0, 0, 10) == doctest::Approx(2.0 / 184756).epsilon(1e-9));
  // fisher.test(matrix(c(1, 11, 9, 3), 2))$p.value = 0.002759456
  CHECK(fisher_exact_two_sided(1, 9, 11, 3) == doctest::Approx(0.002759456).epsilon(1e-6));
  // Symmetric in rows and columns, 1 for a balanced or degenerate table.
  CHECK(fisher_exact_two_sided(9, 1, 3, 11) ==
        doctest::Approx(fisher_exact_two_sided(1, 9, 11, 3)));
  CHECK(fisher_exact_two_sided(5, 5, 5, 5) == doctest::Approx(1.0));
  CHECK(fisher_exact_two_sided(0, 0, 4, 7) == 1.0);
}

TEST_CASE("significance: the odds ratio is on the side of 1 its rates are, zero cells too") {
  CHECK(odds_ratio(2, 1, 1, 2) == doctest::Approx(4.0));
  CHECK(odds_ratio(1, 2, 2, 1) == doctest::Approx(0.25));
  // 3 of 42 failing with the operator (7.1%), 0 of 5 without (0.0%): the odds are higher with
  // it. Haldane-Anscombe's +0.5 gave 0.975, below 1, beside rates that say the opposite.
  CHECK(std::isinf(odds_ratio(3, 39, 0, 5)));
  CHECK(odds_ratio(3, 39, 0, 5) > 1);
  CHECK(odds_ratio(0, 5, 3, 39) == 0.0);
  // Every model holds it, or none fails: no evidence either way.
  CHECK(std::isnan(odds_ratio(3, 39, 0, 0)));
  CHECK(std::isnan(odds_ratio(0, 39, 0, 5)));
  // Its direction always agrees with the rates a/(a+b) against c/(c+d).
  for (long a = 0; a <= 4; ++a)
    for (long b = 0; b <= 4; ++b)
      for (long c = 0; c <= 4; ++c)
        for (long d = 0; d <= 4; ++d) {
          if (a + b == 0 || c + d == 0 || (a * d == 0 && b * c == 0)) continue;
          double with = static_cast<double>(a) / static_cast<double>(a + b);
          double without = static_cast<double>(c) / static_cast<double>(c + d);
          double r = odds_ratio(a, b, c, d);
          CHECK((r > 1) == (with > without));
          CHECK((r < 1) == (with < without));
        }
}

TEST_CASE("significance: Benjamini-Hochberg q-values in input order") {
  std::vector<double> q = benjamini_hochberg({0.01, 0.04, 0.03, 0.005});
  REQUIRE(q.size() == 4);
  CHECK(q[0] == doctest::Approx(0.02));
  CHECK(q[1] == doctest::Approx(0.04));
  CHECK(q[2] == doctest::Approx(0.04));
  CHECK(q[3] == doctest::Approx(0.02));
  // Capped at 1, ties equal, empty input.
  q = benjamini_hochberg({0.9, 0.9, 0.5});
  CHECK(q[0] == doctest::Approx(0.9));
  CHECK(q[1] == doctest::Approx(0.9));
  CHECK(q[2] == doctest::Approx(0.9));  // 0.5 * 3 / 1 = 1.5, but a larger p has q 0.9
  CHECK(benjamini_hochberg({}).empty());
}
