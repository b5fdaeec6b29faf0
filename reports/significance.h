// Significance of a 2x2 table: Fisher's exact test (two-sided), the odds ratio, and the
// Benjamini-Hochberg correction of many p-values. Used by the campaign analysis (testing/).
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

// (a*d)/(b*c); with a zero cell 0.5 is added to every cell (Haldane-Anscombe), so it is finite.
double odds_ratio(long a, long b, long c, long d);

// Benjamini-Hochberg q-values, in the order of `p`: q_(i) = min over j >= i of p_(j) * m / j
// (sorted ascending), capped at 1. Ties and the input order do not change any q.
std::vector<double> benjamini_hochberg(const std::vector<double>& p);

}  // namespace convfail::reports
