// Significance of a 2x2 table: Fisher's exact test (two-sided), the odds ratio, and the
// Benjamini-Hochberg correction of many p-values. Used by the campaign analysis (campaign/).
#pragma once

#include <vector>

namespace convfail::reports {

// The 2x2 table           case  control
//   with the feature        a      b
//   without it              c      d
// Two-sided p of Fisher's exact test: the sum of the probabilities (hypergeometric, margins
// fixed) of every table no more likely than the observed one (relative tolerance 1e-7, as R's
// fisher.test). 1 when a margin is empty.
double fisher_exact_two_sided(long a, long b, long c, long d);

// (a*d)/(b*c), the sample odds ratio, the same way round as the rates a/(a+b) and c/(c+d):
// above 1 exactly when the rate with the feature is the higher. Infinite when only b*c is 0, 0
// when only a*d is, NaN when both are (no evidence either way). No continuity correction:
// Haldane-Anscombe's 0.5 added to every cell can put the estimate on the other side of 1 than
// the rates it is printed beside (3 of 42 failing with the feature and 0 of 5 without: 0.975).
double odds_ratio(long a, long b, long c, long d);

// Benjamini-Hochberg q-values, in the order of `p`: q_(i) = min over j >= i of p_(j) * m / j
// (sorted ascending), capped at 1. Ties and the input order do not change any q.
std::vector<double> benjamini_hochberg(const std::vector<double>& p);

}  // namespace convfail::reports
