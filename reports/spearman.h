// Spearman's rank correlation (ties get their average rank; Pearson correlation of the ranks).
#pragma once

#include <vector>

namespace convfail::reports {

// Average ranks, 1-based.
std::vector<double> average_ranks(const std::vector<double>& values);

// NaN when fewer than 2 pairs, sizes differ, or either side is constant.
double spearman(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace convfail::reports
