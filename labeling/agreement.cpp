#include "labeling/agreement.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace convfail::labeling {

ConfusionMatrix confusion(const LabelPairs& pairs, std::vector<std::string> label_order) {
  ConfusionMatrix m;
  std::set<std::string> seen;
  for (const auto& [a, b] : pairs) {
    seen.insert(a);
    seen.insert(b);
  }
  m.labels = std::move(label_order);
  for (const std::string& l : seen)
    if (std::find(m.labels.begin(), m.labels.end(), l) == m.labels.end()) m.labels.push_back(l);
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < m.labels.size(); ++i) index[m.labels[i]] = i;
  m.counts.assign(m.labels.size(), std::vector<long>(m.labels.size(), 0));
  for (const auto& [a, b] : pairs) ++m.counts[index[a]][index[b]];
  m.total = static_cast<long>(pairs.size());
  return m;
}

KappaResult cohen_kappa(const LabelPairs& pairs) {
  KappaResult r;
  ConfusionMatrix m = confusion(pairs);
  r.n = m.total;
  if (r.n == 0) return r;
  const double n = static_cast<double>(r.n);
  const std::size_t k = m.labels.size();
  std::vector<double> row(k, 0), col(k, 0);
  double diag = 0;
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < k; ++j) {
      double p = m.counts[i][j] / n;
      row[i] += p;
      col[j] += p;
      if (i == j) diag += p;
    }
  double pe = 0;
  for (std::size_t i = 0; i < k; ++i) pe += row[i] * col[i];
  r.observed = diag;
  r.expected = pe;
  if (1.0 - pe < 1e-12) {
    // Both raters used one single label: perfect agreement, kappa undefined; report 1.
    r.kappa = diag >= 1.0 - 1e-12 ? 1.0 : 0.0;
    r.ci_low = r.ci_high = r.kappa;
    return r;
  }
  r.kappa = (diag - pe) / (1.0 - pe);
  // Large-sample variance of kappa (Fleiss, Cohen & Everitt 1969).
  double a = 0;
  for (std::size_t i = 0; i < k; ++i) {
    double pii = m.counts[i][i] / n;
    double t = 1.0 - (row[i] + col[i]) * (1.0 - r.kappa);
    a += pii * t * t;
  }
  double b = 0;
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < k; ++j) {
      if (i == j) continue;
      double pij = m.counts[i][j] / n;
      double t = col[i] + row[j];  // p_.i + p_j.
      b += pij * t * t;
    }
  b *= (1.0 - r.kappa) * (1.0 - r.kappa);
  double c = r.kappa - pe * (1.0 - r.kappa);
  c *= c;
  double var = (a + b - c) / (n * (1.0 - pe) * (1.0 - pe));
  r.se = var > 0 ? std::sqrt(var) : 0.0;
  r.ci_low = std::max(-1.0, r.kappa - 1.96 * r.se);
  r.ci_high = std::min(1.0, r.kappa + 1.96 * r.se);
  return r;
}

double fleiss_kappa(const std::vector<std::vector<std::string>>& ratings) {
  if (ratings.empty()) throw std::invalid_argument("Fleiss' kappa needs at least one item");
  const std::size_t raters = ratings.front().size();
  if (raters < 2) throw std::invalid_argument("Fleiss' kappa needs at least two raters per item");
  std::map<std::string, double> category_total;
  double mean_pi = 0;
  for (const auto& item : ratings) {
    if (item.size() != raters)
      throw std::invalid_argument("Fleiss' kappa needs the same number of raters for every item");
    std::map<std::string, double> c;
    for (const auto& l : item) c[l] += 1;
    double s = 0;
    for (auto& [l, v] : c) {
      s += v * (v - 1);
      category_total[l] += v;
    }
    mean_pi += s / (raters * (raters - 1.0));
  }
  const double items = static_cast<double>(ratings.size());
  mean_pi /= items;
  double pe = 0;
  for (auto& [l, v] : category_total) {
    double p = v / (items * raters);
    pe += p * p;
  }
  if (1.0 - pe < 1e-12) return mean_pi >= 1.0 - 1e-12 ? 1.0 : 0.0;
  return (mean_pi - pe) / (1.0 - pe);
}

Evaluation evaluate(const LabelPairs& pairs) {
  Evaluation e;
  e.n = static_cast<long>(pairs.size());
  e.matrix = confusion(pairs);
  e.kappa = cohen_kappa(pairs);
  long correct = 0;
  for (const auto& [gold, pred] : pairs) {
    auto& g = e.per_label[gold];
    ++g.support;
    ++e.per_label[pred].predicted;
    if (gold == pred) {
      ++correct;
      ++g.correct;
    }
  }
  e.accuracy = e.n ? static_cast<double>(correct) / e.n : 0.0;
  double f1_sum = 0;
  for (auto& [label, s] : e.per_label) {
    s.precision = s.predicted ? static_cast<double>(s.correct) / s.predicted : 0.0;
    s.recall = s.support ? static_cast<double>(s.correct) / s.support : 0.0;
    s.f1 = s.precision + s.recall > 0 ? 2 * s.precision * s.recall / (s.precision + s.recall) : 0;
    f1_sum += s.f1;
  }
  e.macro_f1 = e.per_label.empty() ? 0.0 : f1_sum / e.per_label.size();
  return e;
}

}  // namespace convfail::labeling
