#include "classifier/calibration.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "labeling/agreement.h"

namespace convfail::classifier {

const char* const kAbstained = "(abstained)";

double Calibration::apply(double raw) const {
  if (blocks.empty()) return raw;
  auto it =
      std::upper_bound(blocks.begin(), blocks.end(), raw,
                       [](double v, const std::pair<double, double>& b) { return v < b.first; });
  if (it == blocks.begin()) return blocks.front().second;
  return std::prev(it)->second;
}

Calibration fit_isotonic(const std::vector<std::pair<double, bool>>& samples) {
  std::vector<std::pair<double, bool>> sorted = samples;
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  struct Block {
    double from;
    double sum;
    double weight;
  };
  std::vector<Block> blocks;
  for (const auto& [x, right] : sorted) {
    if (!blocks.empty() && blocks.back().from == x) {  // equal raw values pooled first
      blocks.back().sum += right ? 1 : 0;
      blocks.back().weight += 1;
      continue;
    }
    blocks.push_back({x, right ? 1.0 : 0.0, 1.0});
  }
  // Pool adjacent violators: merge backwards while the previous mean is not below the last one.
  std::vector<Block> pooled;
  for (const Block& b : blocks) {
    pooled.push_back(b);
    while (pooled.size() >= 2) {
      Block& last = pooled.back();
      Block& prev = pooled[pooled.size() - 2];
      if (prev.sum / prev.weight < last.sum / last.weight) break;  // equal means pooled too
      prev.sum += last.sum;
      prev.weight += last.weight;
      pooled.pop_back();
    }
  }
  Calibration c;
  for (const Block& b : pooled) c.blocks.emplace_back(b.from, b.sum / b.weight);
  return c;
}

double expected_calibration_error(const std::vector<std::pair<double, bool>>& samples, int bins) {
  if (samples.empty() || bins < 1) return 0;
  std::vector<double> conf(bins, 0), right(bins, 0), count(bins, 0);
  for (const auto& [p, ok] : samples) {
    int b = static_cast<int>(std::floor(p * bins));
    b = std::clamp(b, 0, bins - 1);
    conf[b] += p;
    right[b] += ok ? 1 : 0;
    count[b] += 1;
  }
  double ece = 0;
  for (int b = 0; b < bins; ++b)
    if (count[b] > 0)
      ece += count[b] / samples.size() * std::fabs(right[b] / count[b] - conf[b] / count[b]);
  return ece;
}

std::optional<double> threshold_for_accuracy(std::vector<std::pair<double, bool>> samples,
                                             double target_accuracy) {
  std::sort(samples.begin(), samples.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::optional<double> best;
  long right = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    right += samples[i].second ? 1 : 0;
    bool group_end = i + 1 == samples.size() || samples[i + 1].first != samples[i].first;
    if (group_end && static_cast<double>(right) / (i + 1) >= target_accuracy - 1e-12)
      best = samples[i].first;
  }
  return best;
}

const std::vector<double>& default_share_thresholds() {
  static const std::vector<double> t = {0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95};
  return t;
}

SelectiveEval selective_eval(std::vector<ScoredLabel> items, double target_accuracy,
                             std::optional<double> human_share,
                             const std::vector<double>& share_thresholds) {
  std::stable_sort(items.begin(), items.end(), [](const ScoredLabel& a, const ScoredLabel& b) {
    return a.confidence != b.confidence ? a.confidence > b.confidence : a.raw > b.raw;
  });
  SelectiveEval out;
  out.n = static_cast<long>(items.size());
  out.target_accuracy = target_accuracy;
  std::vector<std::pair<double, bool>> samples;
  for (const auto& it : items) samples.emplace_back(it.confidence, it.gold == it.predicted);
  out.ece = expected_calibration_error(samples);
  for (int percent : {25, 50, 75, 100}) {
    CoveragePoint p;
    p.percent = percent;
    p.n = static_cast<long>(std::ceil(percent / 100.0 * out.n - 1e-9));
    if (p.n > 0) {
      labeling::LabelPairs pairs;
      long right = 0;
      for (long i = 0; i < p.n; ++i) {
        pairs.emplace_back(items[i].gold, items[i].predicted);
        right += items[i].gold == items[i].predicted;
      }
      p.accuracy = static_cast<double>(right) / p.n;
      p.kappa = labeling::cohen_kappa(pairs).kappa;
      p.threshold = items[p.n - 1].confidence;
    }
    out.points.push_back(p);
  }
  out.target_threshold = threshold_for_accuracy(samples, target_accuracy);
  if (out.target_threshold) {
    long kept = 0, right = 0;
    for (const auto& [p, ok] : samples)
      if (p >= *out.target_threshold) {
        ++kept;
        right += ok;
      }
    out.target_coverage = out.n ? static_cast<double>(kept) / out.n : 0;
    out.target_reached = kept ? static_cast<double>(right) / kept : 0;
  }
  if (human_share) {
    out.human_share = human_share;
    out.human_labeled = static_cast<long>(std::ceil(*human_share * out.n - 1e-9));
    labeling::LabelPairs pairs;
    for (long i = 0; i < out.n; ++i) {
      bool human = i >= out.n - out.human_labeled;  // the least confident at the end
      pairs.emplace_back(items[i].gold, human ? items[i].gold : items[i].predicted);
    }
    out.hybrid_kappa = labeling::cohen_kappa(pairs).kappa;
  }
  for (double t : share_thresholds) {
    ThresholdShares s;
    s.threshold = t;
    long right = 0, wrong = 0;
    for (const ScoredLabel& it : items) {
      if (it.predicted == kAbstained || it.confidence < t - 1e-12) continue;
      ++(it.gold == it.predicted ? right : wrong);
    }
    if (out.n) {
      s.correct = static_cast<double>(right) / out.n;
      s.wrong = static_cast<double>(wrong) / out.n;
      s.abstained = static_cast<double>(out.n - right - wrong) / out.n;
    }
    out.thresholds.push_back(s);
  }
  return out;
}

OutOfFoldCalibration calibrate_out_of_fold(const std::vector<OutOfFoldSample>& samples,
                                           double target_accuracy, double human_share) {
  OutOfFoldCalibration out;
  if (samples.empty()) return out;
  std::vector<std::pair<double, bool>> raw, crossed;
  std::vector<ScoredLabel> scored;
  std::set<int> groups;
  for (const OutOfFoldSample& o : samples) {
    raw.push_back({o.p, o.gold == o.predicted});
    groups.insert(o.group);
  }
  out.calibration = fit_isotonic(raw);
  std::map<int, Calibration> by_group;
  for (int g : groups) {
    std::vector<std::pair<double, bool>> others;
    for (const OutOfFoldSample& o : samples)
      if (o.group != g) others.push_back({o.p, o.gold == o.predicted});
    by_group[g] = fit_isotonic(others);
  }
  for (const OutOfFoldSample& o : samples) {
    double c = by_group[o.group].apply(o.p);
    crossed.push_back({c, o.gold == o.predicted});
    scored.push_back({o.gold, o.predicted, c, o.p});
  }
  out.raw_ece = expected_calibration_error(raw);
  out.ece = expected_calibration_error(crossed);
  out.method = "isotonic";
  if (out.ece > out.raw_ece) {  // isotonic overfits: keep the probabilities
    out.method = "none";
    out.calibration = Calibration{};
    out.ece = out.raw_ece;
    crossed = raw;
    for (ScoredLabel& l : scored) l.confidence = l.raw;
  }
  out.threshold = threshold_for_accuracy(crossed, target_accuracy);
  out.selective = selective_eval(scored, target_accuracy, human_share);
  return out;
}

}  // namespace convfail::classifier
