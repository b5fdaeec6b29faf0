#include "campaign/analysis/enrichment.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "reports/significance.h"

namespace convfail::campaign {

std::vector<Enrichment> enrichment(const std::vector<std::set<std::string>>& features,
                                   const std::vector<bool>& is_case, long min_models) {
  long cases = 0, controls = 0;
  std::map<std::string, std::pair<long, long>> held;  // feature -> (cases, controls) with it
  for (std::size_t i = 0; i < features.size(); ++i) {
    const bool c = i < is_case.size() && is_case[i];
    (c ? cases : controls) += 1;
    for (const auto& f : features[i]) (c ? held[f].first : held[f].second) += 1;
  }
  std::vector<Enrichment> out;
  for (const auto& [f, n] : held) {
    if (n.first + n.second < min_models) continue;
    Enrichment e;
    e.feature = f;
    e.case_with = n.first;
    e.control_with = n.second;
    e.case_without = cases - n.first;
    e.control_without = controls - n.second;
    e.case_rate = static_cast<double>(e.case_with) / static_cast<double>(n.first + n.second);
    const long rest = e.case_without + e.control_without;
    e.rest_rate = rest ? static_cast<double>(e.case_without) / static_cast<double>(rest) : 0;
    e.odds_ratio =
        reports::odds_ratio(e.case_with, e.control_with, e.case_without, e.control_without);
    e.p = reports::fisher_exact_two_sided(e.case_with, e.control_with, e.case_without,
                                          e.control_without);
    out.push_back(std::move(e));
  }
  std::vector<double> p;
  for (const auto& e : out) p.push_back(e.p);
  std::vector<double> q = reports::benjamini_hochberg(p);
  for (std::size_t i = 0; i < out.size(); ++i) out[i].q = q[i];
  // An undefined odds ratio (NaN: no evidence either way) ranks as 1, so the order is strict.
  auto ratio = [](const Enrichment& e) { return std::isnan(e.odds_ratio) ? 1.0 : e.odds_ratio; };
  std::sort(out.begin(), out.end(), [&](const Enrichment& a, const Enrichment& b) {
    if (a.q != b.q) return a.q < b.q;
    if (a.p != b.p) return a.p < b.p;
    if (ratio(a) != ratio(b)) return ratio(a) > ratio(b);
    return a.feature < b.feature;
  });
  return out;
}

}  // namespace convfail::campaign
