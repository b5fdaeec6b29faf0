#include "reports/significance.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace convfail::reports {
namespace {

// log(n!) for n up to the largest table seen, grown on demand (one table per thread).
double log_factorial(long n) {
  thread_local std::vector<double> table{0.0};
  while (static_cast<long>(table.size()) <= n)
    table.push_back(table.back() + std::log(static_cast<double>(table.size())));
  return table[static_cast<std::size_t>(n)];
}

}  // namespace

double fisher_exact_two_sided(long a, long b, long c, long d) {
  if (a < 0 || b < 0 || c < 0 || d < 0) return 1.0;
  const long row1 = a + b, row2 = c + d, col1 = a + c, n = a + b + c + d;
  if (row1 == 0 || row2 == 0 || col1 == 0 || col1 == n) return 1.0;
  const double base = log_factorial(row1) + log_factorial(row2) + log_factorial(col1) +
                      log_factorial(n - col1) - log_factorial(n);
  auto log_p = [&](long x) {  // x = the table's top-left cell
    return base - log_factorial(x) - log_factorial(row1 - x) - log_factorial(col1 - x) -
           log_factorial(row2 - col1 + x);
  };
  const double observed = log_p(a);
  const long lo = std::max(0L, col1 - row2), hi = std::min(row1, col1);
  double sum = 0;
  for (long x = lo; x <= hi; ++x) {
    double lp = log_p(x);
    if (lp <= observed + 1e-7 * std::abs(observed) + 1e-12) sum += std::exp(lp);
  }
  return std::min(1.0, sum);
}

double odds_ratio(long a, long b, long c, long d) {
  const double ad = static_cast<double>(a) * static_cast<double>(d);
  const double bc = static_cast<double>(b) * static_cast<double>(c);
  if (bc == 0)
    return ad == 0 ? std::numeric_limits<double>::quiet_NaN()
                   : std::numeric_limits<double>::infinity();
  return ad / bc;
}

std::vector<double> benjamini_hochberg(const std::vector<double>& p) {
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return p[x] < p[y]; });
  std::vector<double> q(m);
  double running = 1.0;
  for (std::size_t k = m; k-- > 0;) {
    double v = p[order[k]] * static_cast<double>(m) / static_cast<double>(k + 1);
    running = std::min(running, v);
    q[order[k]] = std::min(1.0, running);
  }
  // Equal p-values get equal q-values (the running minimum reaches the largest rank first).
  return q;
}

}  // namespace convfail::reports
