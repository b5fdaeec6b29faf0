#include "classifier/predictor_choice.h"

#include <algorithm>
#include <cmath>

#include "labeling/agreement.h"

namespace convfail::classifier {

bool is_predictor(const std::string& name) {
  return name == kPredictorRules || name == kPredictorModel || name == kPredictorBlend;
}

std::set<std::string> rules_unsupported_without(
    const std::vector<std::vector<RuleHit>>& fired,
    const std::map<std::string, std::vector<std::string>>& gold, const std::vector<int>& group,
    int held_out) {
  struct Count {
    long fired = 0, agreed = 0;
    std::string dimension, label;
  };
  std::map<std::string, Count> rules;
  std::map<std::string, std::map<std::string, long>> label_count;  // dimension -> label -> n
  std::map<std::string, long> labeled;                             // dimension -> n
  for (std::size_t i = 0; i < fired.size(); ++i) {
    for (const RuleHit& h : fired[i]) {
      Count& c = rules[h.rule_id];
      c.dimension = h.dimension;
      c.label = h.label;
    }
    if (group[i] == held_out) continue;
    for (const auto& [dim, labels] : gold) {
      if (labels[i].empty()) continue;
      ++label_count[dim][labels[i]];
      ++labeled[dim];
    }
    for (const RuleHit& h : fired[i]) {
      auto g = gold.find(h.dimension);
      if (g == gold.end() || g->second[i].empty()) continue;
      Count& c = rules[h.rule_id];
      ++c.fired;
      c.agreed += g->second[i] == h.label;
    }
  }
  std::set<std::string> out;
  for (const auto& [id, c] : rules) {
    double base = labeled[c.dimension] ? static_cast<double>(label_count[c.dimension][c.label]) /
                                             labeled[c.dimension]
                                       : 0;
    double precision = c.fired ? static_cast<double>(c.agreed) / c.fired : 0;
    if (c.fired < kMinRuleSupport || precision < base - 1e-9) out.insert(id);
  }
  return out;
}

std::vector<double> shift_log_odds(const std::vector<double>& p, const std::vector<double>& shift) {
  std::vector<double> z(p.size());
  for (std::size_t k = 0; k < p.size(); ++k)
    z[k] = std::log(std::max(p[k], 1e-300)) + (k < shift.size() ? shift[k] : 0.0);
  double m = *std::max_element(z.begin(), z.end());
  double sum = 0;
  for (double& v : z) sum += (v = std::exp(v - m));
  for (double& v : z) v /= sum;
  return z;
}

std::vector<double> blend_probabilities(const std::vector<double>& p,
                                        std::optional<std::size_t> rules_label, double weight) {
  if (!rules_label || *rules_label >= p.size()) return p;
  std::vector<double> shift(p.size(), 0.0);
  shift[*rules_label] = weight;
  return shift_log_odds(p, shift);
}

const std::vector<double>& blend_weights() {
  // log-odds units: 0.5 nudges the model, 8 makes the rules decide wherever they do not abstain
  // (the model filling in their abstentions).
  static const std::vector<double> weights = {0.5, 1, 2, 4, 8};
  return weights;
}

namespace {

double kappa_of(const std::vector<std::string>& gold, const std::vector<std::string>& predicted,
                const std::vector<std::size_t>& rows) {
  labeling::LabelPairs pairs;
  pairs.reserve(rows.size());
  for (std::size_t r : rows) pairs.push_back({gold[r], predicted[r]});
  return pairs.empty() ? 0 : labeling::cohen_kappa(pairs).kappa;
}

PredictorCv figures(const std::vector<std::string>& gold,
                    const std::vector<std::string>& predicted) {
  PredictorCv out;
  std::vector<std::size_t> all(gold.size());
  long right = 0;
  for (std::size_t i = 0; i < gold.size(); ++i) {
    all[i] = i;
    right += gold[i] == predicted[i];
  }
  out.kappa = kappa_of(gold, predicted, all);
  out.accuracy = gold.empty() ? 0 : static_cast<double>(right) / gold.size();
  return out;
}

}  // namespace

double bootstrap_win_share(const std::vector<std::string>& gold, const std::vector<std::string>& a,
                           const std::vector<std::string>& b, int resamples, std::uint64_t seed) {
  if (gold.empty() || resamples <= 0) return 0;
  std::uint64_t state = seed;
  auto next = [&state](std::size_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>((state >> 33) % n);
  };
  long wins = 0;
  std::vector<std::size_t> rows(gold.size());
  for (int r = 0; r < resamples; ++r) {
    for (std::size_t& i : rows) i = next(gold.size());
    wins += kappa_of(gold, a, rows) > kappa_of(gold, b, rows) + 1e-12;
  }
  return static_cast<double>(wins) / resamples;
}

PredictorChoice choose_predictor(const std::vector<std::string>& gold,
                                 const std::vector<std::string>& rules,
                                 const std::vector<std::string>& model,
                                 const std::vector<std::string>& blend, double blend_weight,
                                 const ChoiceOptions& options) {
  PredictorChoice c;
  c.options = options;
  c.blend_weight = blend_weight;
  c.rules = figures(gold, rules);
  c.model = figures(gold, model);
  c.blend = figures(gold, blend);
  // Ties go to the model: the simpler of the two.
  bool blend_better = c.blend.kappa > c.model.kappa + 1e-12;
  c.challenger = blend_better ? kPredictorBlend : kPredictorModel;
  const std::vector<std::string>& challenger = blend_better ? blend : model;
  c.gain = (blend_better ? c.blend.kappa : c.model.kappa) - c.rules.kappa;
  c.win_share = bootstrap_win_share(gold, challenger, rules, options.resamples, options.seed);
  bool clear = c.gain >= options.margin - 1e-12 && c.win_share >= options.min_win_share - 1e-12;
  c.predictor = clear ? c.challenger : kPredictorRules;
  return c;
}

}  // namespace convfail::classifier
