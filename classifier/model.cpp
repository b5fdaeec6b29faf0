#include "classifier/model.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "classifier/rules.h"
#include "core/error.h"
#include "core/text.h"
#include "labeling/agreement.h"

namespace convfail::classifier {

namespace {

constexpr int kFormat = 1;
constexpr std::size_t kMaxTokensPerField = 2000;

bool is_rule_feature(const std::string& f) {
  return starts_with(f, "rule:") || starts_with(f, "rules:");
}

// Lower-cased ASCII words (letters, digits, '_') of 2..40 bytes; other bytes separate.
std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (cur.size() >= 2 && cur.size() <= 40 && out.size() < kMaxTokensPerField) out.push_back(cur);
    cur.clear();
  };
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '_')
      cur += static_cast<char>(std::tolower(c));
    else
      flush();
  }
  flush();
  return out;
}

}  // namespace

std::set<std::string> issue_features(const Segments& segments, const Classification& rules) {
  std::set<std::string> out;
  for (const Evidence& e : rules.evidence) out.insert("rule:" + e.rule_id);
  for (const Decision& d : rules.decisions)
    out.insert("rules:" + d.dimension + "=" + (d.abstained ? "(abstained)" : d.label.value_or("")));
  for (const Field& f : segments.fields) {
    std::vector<std::string> w = words(f.text);
    const char* prefix = f.kind == FieldKind::kTitle       ? "t:"
                         : f.kind == FieldKind::kErrorLine ? "e:"
                                                           : nullptr;
    for (std::size_t i = 0; i < w.size(); ++i) {
      out.insert("w:" + w[i]);
      if (prefix) out.insert(prefix + w[i]);
      if (i + 1 < w.size()) out.insert("b:" + w[i] + " " + w[i + 1]);
    }
  }
  return out;
}

OutOfFoldCalibration DimensionModel::calibration_of(const std::string& name) const {
  if (name == kPredictorRules) return rules_calibration;
  if (name == kPredictorBlend) return blend_calibration;
  OutOfFoldCalibration out;
  out.method = calibration_method;
  out.calibration = calibration;
  out.threshold = threshold;
  out.raw_ece = cv_raw_ece;
  out.ece = cv_ece;
  out.selective = cv_selective;
  return out;
}

const DimensionModel* TrainedModel::dimension(const std::string& name) const {
  for (const DimensionModel& d : dimensions)
    if (d.dimension == name) return &d;
  return nullptr;
}

namespace {

using Sparse = std::vector<std::pair<std::size_t, double>>;

// Rule features and text features each scaled to unit norm, so that ||x||^2 <= 2.
Sparse vectorize(const std::map<std::string, std::size_t>& index,
                 const std::set<std::string>& features, double rule_scale) {
  Sparse rules, text;
  for (const std::string& f : features) {
    auto it = index.find(f);
    if (it == index.end()) continue;
    (is_rule_feature(f) ? rules : text).push_back({it->second, 1.0});
  }
  Sparse out;
  for (Sparse* part : {&rules, &text}) {
    double v = part->empty() ? 0 : 1.0 / std::sqrt(static_cast<double>(part->size()));
    if (part == &rules) v *= rule_scale;
    for (auto& [i, x] : *part) out.push_back({i, x * v});
  }
  std::sort(out.begin(), out.end());
  return out;
}

void softmax(std::vector<double>& z) {
  double m = *std::max_element(z.begin(), z.end());
  double sum = 0;
  for (double& v : z) sum += (v = std::exp(v - m));
  for (double& v : z) v /= sum;
}

std::vector<double> probabilities(const std::vector<std::vector<double>>& w,
                                  const std::vector<double>& b, const Sparse& x) {
  std::vector<double> z = b;
  for (std::size_t k = 0; k < z.size(); ++k)
    for (const auto& [i, v] : x) z[k] += w[k][i] * v;
  softmax(z);
  return z;
}

struct Fit {
  std::vector<std::vector<double>> w;
  std::vector<double> b;
};

// Minimises mean cross-entropy + lambda/2 ||w||^2 (bias not penalised) by Nesterov-accelerated
// gradient descent with the step 1/L of the bound L = (max ||x||^2 + 1)/2 + lambda.
Fit fit_softmax(const std::vector<const Sparse*>& xs, const std::vector<std::size_t>& ys,
                std::size_t labels, std::size_t dims, double lambda, int iterations,
                bool balanced) {
  Fit cur{std::vector<std::vector<double>>(labels, std::vector<double>(dims, 0.0)),
          std::vector<double>(labels, 0.0)};
  if (xs.empty()) return cur;
  double max_norm = 0;
  for (const Sparse* x : xs) {
    double n = 0;
    for (const auto& p : *x) n += p.second * p.second;
    max_norm = std::max(max_norm, n);
  }
  const double step = 1.0 / ((max_norm + 1.0) / 2.0 + lambda);
  Fit look = cur;
  Fit grad = cur;
  double t = 1;
  // Example weights: 1/n, or (balanced) 1/(labels seen * examples of its label).
  std::vector<double> count(labels, 0.0);
  for (std::size_t y : ys) count[y] += 1;
  std::size_t seen = 0;
  for (double c : count) seen += c > 0;
  std::vector<double> weight(xs.size());
  for (std::size_t n = 0; n < xs.size(); ++n)
    weight[n] = balanced ? 1.0 / (static_cast<double>(seen) * count[ys[n]])
                         : 1.0 / static_cast<double>(xs.size());
  for (int it = 0; it < iterations; ++it) {
    for (std::size_t k = 0; k < labels; ++k) {
      for (std::size_t j = 0; j < dims; ++j) grad.w[k][j] = lambda * look.w[k][j];
      grad.b[k] = 0;
    }
    for (std::size_t n = 0; n < xs.size(); ++n) {
      std::vector<double> p = probabilities(look.w, look.b, *xs[n]);
      p[ys[n]] -= 1.0;
      for (std::size_t k = 0; k < labels; ++k) {
        double g = p[k] * weight[n];
        grad.b[k] += g;
        for (const auto& [i, v] : *xs[n]) grad.w[k][i] += g * v;
      }
    }
    double t_next = (1 + std::sqrt(1 + 4 * t * t)) / 2;
    double momentum = (t - 1) / t_next;
    for (std::size_t k = 0; k < labels; ++k) {
      for (std::size_t j = 0; j < dims; ++j) {
        double next = look.w[k][j] - step * grad.w[k][j];
        look.w[k][j] = next + momentum * (next - cur.w[k][j]);
        cur.w[k][j] = next;
      }
      double next = look.b[k] - step * grad.b[k];
      look.b[k] = next + momentum * (next - cur.b[k]);
      cur.b[k] = next;
    }
    t = t_next;
  }
  return cur;
}

std::size_t argmax(const std::vector<double>& p) {
  return static_cast<std::size_t>(std::max_element(p.begin(), p.end()) - p.begin());
}

using ExampleVector = std::function<const Sparse&(int group, std::size_t example)>;

// Out-of-fold probabilities of each row (rows[r] indexes the examples, y[r] its label): for every
// group, a fit on the other groups' rows predicts the group's rows. x(g, i) is example i's vector
// as seen when group g is held out.
std::vector<std::vector<double>> out_of_fold(const std::vector<std::size_t>& rows,
                                             const std::vector<int>& group,
                                             const std::set<int>& groups,
                                             const std::vector<std::size_t>& y, std::size_t labels,
                                             std::size_t dims, double lambda,
                                             const FitOptions& options, const ExampleVector& x) {
  std::vector<std::vector<double>> out(rows.size());
  for (int g : groups) {
    std::vector<const Sparse*> tx;
    std::vector<std::size_t> ty;
    for (std::size_t r = 0; r < rows.size(); ++r)
      if (group[r] != g) {
        tx.push_back(&x(g, rows[r]));
        ty.push_back(y[r]);
      }
    Fit f = fit_softmax(tx, ty, labels, dims, lambda, options.iterations, options.balanced);
    for (std::size_t r = 0; r < rows.size(); ++r)
      if (group[r] == g) out[r] = probabilities(f.w, f.b, x(g, rows[r]));
  }
  return out;
}

// The rules' decision and raw confidence of example i in a dimension (kAbstained, 0 when the data
// has none).
std::pair<std::string, double> rules_of(const std::map<std::string, std::vector<std::string>>& l,
                                        const std::map<std::string, std::vector<double>>& c,
                                        const std::string& dimension, std::size_t i) {
  auto li = l.find(dimension);
  auto ci = c.find(dimension);
  return {li == l.end() ? kAbstained : li->second[i], ci == c.end() ? 0.0 : ci->second[i]};
}

// The choice between rules, model and blend of one dimension (predictor_choice.h) from the
// model's out-of-fold probabilities at the chosen lambda (oof) and, when the data has the
// correction, the model cross-validated again on the corrected examples (xs_without); and each
// predictor's out-of-fold calibration.
void choose(const TrainingData& data, const std::string& dimension,
            const std::vector<std::size_t>& rows, const std::vector<int>& group,
            const std::set<int>& groups, const std::vector<std::size_t>& y, std::size_t dims,
            const FitOptions& options, const std::vector<std::vector<double>>& oof,
            const std::map<int, std::vector<Sparse>>& xs_without, DimensionModel& dm) {
  bool corrected = !xs_without.empty();
  for (int g : groups) corrected = corrected && xs_without.count(g);
  std::vector<std::vector<double>> fixed_oof =
      corrected ? out_of_fold(rows, group, groups, y, dm.labels.size(), dims, dm.lambda, options,
                              [&xs_without](int g, std::size_t i) -> const Sparse& {
                                return xs_without.at(g)[i];
                              })
                : oof;
  std::map<std::string, std::size_t> label_index;
  for (std::size_t k = 0; k < dm.labels.size(); ++k) label_index[dm.labels[k]] = k;
  auto abstain = data.abstain_labels.find(dimension);
  auto vote = [&](const std::string& rules_label) -> std::optional<std::size_t> {
    if (rules_label == kAbstained ||
        (abstain != data.abstain_labels.end() && rules_label == abstain->second))
      return std::nullopt;
    auto it = label_index.find(rules_label);
    if (it == label_index.end()) return std::nullopt;
    return it->second;
  };
  const std::vector<std::string>& gold_of = data.labels.at(dimension);
  std::vector<std::string> gold, rules, model, raw_rules, raw_model;
  std::vector<OutOfFoldSample> rules_samples, model_samples;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::size_t i = rows[r];
    gold.push_back(gold_of[i]);
    auto raw = rules_of(data.rules_labels, data.rules_confidence, dimension, i);
    auto fixed = raw;
    if (corrected) {
      const RulesView& v = data.rules_without.at(group[r]);
      fixed = rules_of(v.rules_labels, v.rules_confidence, dimension, i);
    }
    raw_rules.push_back(raw.first);
    rules.push_back(fixed.first);
    rules_samples.push_back({group[r], fixed.second, gold_of[i], fixed.first});
    raw_model.push_back(dm.labels[argmax(oof[r])]);
    std::size_t k = argmax(fixed_oof[r]);
    model.push_back(dm.labels[k]);
    model_samples.push_back({group[r], fixed_oof[r][k], gold_of[i], dm.labels[k]});
  }
  // The blend: the rules' vote weight with the best out-of-fold kappa (the first of equals).
  double best_weight = blend_weights().front(), best_kappa = -2;
  std::vector<std::string> blend, raw_blend;
  std::vector<OutOfFoldSample> blend_samples;
  for (double w : blend_weights()) {
    std::vector<std::string> predicted;
    std::vector<OutOfFoldSample> samples;
    labeling::LabelPairs pairs;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      std::vector<double> p = blend_probabilities(fixed_oof[r], vote(rules[r]), w);
      std::size_t k = argmax(p);
      predicted.push_back(dm.labels[k]);
      samples.push_back({group[r], p[k], gold[r], dm.labels[k]});
      pairs.push_back({gold[r], dm.labels[k]});
    }
    double kappa = labeling::cohen_kappa(pairs).kappa;
    if (kappa > best_kappa + 1e-9) {
      best_kappa = kappa;
      best_weight = w;
      blend = std::move(predicted);
      blend_samples = std::move(samples);
    }
  }
  for (std::size_t r = 0; r < rows.size(); ++r)
    raw_blend.push_back(
        dm.labels[argmax(blend_probabilities(oof[r], vote(raw_rules[r]), best_weight))]);

  PredictorChoice c = choose_predictor(gold, rules, model, blend, best_weight, options.choice);
  PredictorChoice raw = choose_predictor(gold, raw_rules, raw_model, raw_blend, best_weight,
                                         ChoiceOptions{0, 0, 0, 1});
  for (auto [to, from] : {std::pair{&c.rules, &raw.rules}, std::pair{&c.model, &raw.model},
                          std::pair{&c.blend, &raw.blend}}) {
    to->raw_kappa = from->kappa;
    to->raw_accuracy = from->accuracy;
  }
  c.corrected = corrected;
  if (corrected) {
    double dropped = 0;
    for (int g : groups) dropped += static_cast<double>(data.rules_without.at(g).dropped.size());
    c.dropped_rules = dropped / static_cast<double>(groups.size());
  }
  dm.choice = c;
  dm.predictor = c.predictor;
  dm.blend_weight = best_weight;

  OutOfFoldCalibration m = calibrate_out_of_fold(model_samples, kCalibrationTarget, 0.3);
  dm.calibration_method = m.method;
  dm.calibration = m.calibration;
  dm.threshold = m.threshold;
  dm.cv_raw_ece = m.raw_ece;
  dm.cv_ece = m.ece;
  dm.cv_selective = m.selective;
  dm.rules_calibration = calibrate_out_of_fold(rules_samples, kCalibrationTarget, 0.3);
  dm.blend_calibration = calibrate_out_of_fold(blend_samples, kCalibrationTarget, 0.3);
}

// Vocabulary: every rule feature seen, text features in >= min_doc_freq examples, the most
// frequent first up to the cap (ties by name), stored sorted by name.
void choose_vocabulary(const TrainingData& data, const FitOptions& options, TrainedModel& model) {
  std::map<std::string, int> df;
  for (const auto& ex : data.examples)
    for (const std::string& f : ex) ++df[f];
  std::vector<std::pair<int, std::string>> ranked;
  for (const auto& [f, n] : df)
    if (is_rule_feature(f) || n >= options.min_doc_freq) ranked.push_back({-n, f});
  std::sort(ranked.begin(), ranked.end());
  if (ranked.size() > options.max_features) ranked.resize(options.max_features);
  for (const auto& r : ranked) model.features.push_back(r.second);
  std::sort(model.features.begin(), model.features.end());
  for (std::size_t i = 0; i < model.features.size(); ++i) model.index[model.features[i]] = i;
}

// Cross-validation groups of the rows: the gold folds when there are at least two, else 4 by
// position. `groups` gets the distinct groups.
std::vector<int> cv_groups(const TrainingData& data, const std::vector<std::size_t>& rows,
                           std::set<int>& groups) {
  std::vector<int> group(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) groups.insert(data.cv_group[rows[r]]);
  bool use_folds = groups.size() >= 2 && !groups.count(-1);
  groups.clear();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    group[r] = use_folds ? data.cv_group[rows[r]] : static_cast<int>(r % 4);
    groups.insert(group[r]);
  }
  return group;
}

// The regularisation by cross-validation: each lambda's pooled out-of-fold kappa in
// dm.cv_kappa, the best (strongest of equals) in dm.lambda with its accuracy; returns its
// out-of-fold probabilities per row (empty when there was nothing to choose).
std::vector<std::vector<double>> pick_lambda(const std::vector<std::size_t>& rows,
                                             const std::vector<int>& group,
                                             const std::set<int>& groups,
                                             const std::vector<std::size_t>& y,
                                             const std::vector<std::string>& gold,
                                             const std::vector<Sparse>& xs, std::size_t dims,
                                             const FitOptions& options, DimensionModel& dm) {
  auto same = [&xs](int, std::size_t i) -> const Sparse& { return xs[i]; };
  double best_kappa = -2;
  double best_lambda = options.lambdas.empty() ? 0.1 : options.lambdas.front();
  std::vector<double> lambdas = options.lambdas;
  std::sort(lambdas.rbegin(), lambdas.rend());  // strongest first: ties keep the stronger
  // One candidate: nothing to choose, no cross-validation (cv_kappa stays empty).
  if (lambdas.size() == 1 || groups.size() < 2) lambdas.clear();
  std::vector<std::vector<double>> best_oof;  // per row: out-of-fold probabilities
  for (double lambda : lambdas) {
    std::vector<std::vector<double>> oof =
        out_of_fold(rows, group, groups, y, dm.labels.size(), dims, lambda, options, same);
    labeling::LabelPairs pairs;
    long correct = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const std::string& predicted = dm.labels[argmax(oof[r])];
      pairs.push_back({gold[rows[r]], predicted});
      correct += predicted == gold[rows[r]];
    }
    double kappa = pairs.empty() ? 0 : labeling::cohen_kappa(pairs).kappa;
    dm.cv_kappa[lambda] = kappa;
    if (kappa > best_kappa + 1e-9) {
      best_kappa = kappa;
      best_lambda = lambda;
      dm.cv_accuracy = pairs.empty() ? 0 : static_cast<double>(correct) / pairs.size();
      best_oof = std::move(oof);
    }
  }
  dm.lambda = best_lambda;
  return best_oof;
}

// The rules' own kappa and accuracy against the gold rows of the dimension.
void add_rules_figures(const TrainingData& data, const std::string& dimension,
                       const std::vector<std::size_t>& rows, const std::vector<std::string>& gold,
                       DimensionModel& dm) {
  auto rl = data.rules_labels.find(dimension);
  if (rl == data.rules_labels.end()) return;
  labeling::LabelPairs pairs;
  long correct = 0;
  for (std::size_t i : rows) {
    pairs.push_back({gold[i], rl->second[i]});
    correct += rl->second[i] == gold[i];
  }
  dm.rules_kappa = labeling::cohen_kappa(pairs).kappa;
  dm.rules_accuracy = static_cast<double>(correct) / pairs.size();
}

// One dimension's model: labels, cross-validated lambda, the predictor choice, the final fit on
// every gold row, the rules' figures. nullopt when no example has a gold label.
std::optional<DimensionModel> fit_dimension(const TrainingData& data, const std::string& dimension,
                                            const std::vector<std::string>& gold,
                                            const std::vector<Sparse>& xs,
                                            const std::map<int, std::vector<Sparse>>& xs_without,
                                            std::size_t dims, const FitOptions& options) {
  DimensionModel dm;
  dm.dimension = dimension;
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < gold.size(); ++i)
    if (!gold[i].empty()) rows.push_back(i);
  if (rows.empty()) return std::nullopt;
  std::set<std::string> label_set;
  for (std::size_t i : rows) label_set.insert(gold[i]);
  dm.labels.assign(label_set.begin(), label_set.end());
  std::map<std::string, std::size_t> label_index;
  for (std::size_t k = 0; k < dm.labels.size(); ++k) label_index[dm.labels[k]] = k;
  dm.n = static_cast<long>(rows.size());

  std::set<int> groups;
  const std::vector<int> group = cv_groups(data, rows, groups);
  std::vector<std::size_t> y(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) y[r] = label_index[gold[rows[r]]];
  std::vector<std::vector<double>> best_oof =
      pick_lambda(rows, group, groups, y, gold, xs, dims, options, dm);
  if (!best_oof.empty())
    choose(data, dimension, rows, group, groups, y, dims, options, best_oof, xs_without, dm);
  std::vector<const Sparse*> tx;
  std::vector<std::size_t> ty;
  for (std::size_t i : rows) {
    tx.push_back(&xs[i]);
    ty.push_back(label_index[gold[i]]);
  }
  Fit f =
      fit_softmax(tx, ty, dm.labels.size(), dims, dm.lambda, options.iterations, options.balanced);
  dm.weights = std::move(f.w);
  dm.bias = std::move(f.b);
  add_rules_figures(data, dimension, rows, gold, dm);
  return dm;
}

}  // namespace

TrainedModel fit_model(const TrainingData& data, const FitOptions& options) {
  TrainedModel model;
  model.rule_scale = options.rule_scale;
  choose_vocabulary(data, options, model);
  std::vector<Sparse> xs;
  for (const auto& ex : data.examples) xs.push_back(vectorize(model.index, ex, options.rule_scale));
  const std::size_t dims = model.features.size();
  // The corrected examples (predictor_choice.h) as vectors, per held-out group.
  std::map<int, std::vector<Sparse>> xs_without;
  for (const auto& [g, view] : data.rules_without)
    for (const auto& ex : view.examples)
      xs_without[g].push_back(vectorize(model.index, ex, options.rule_scale));

  for (const auto& [dimension, gold] : data.labels)
    if (auto dm = fit_dimension(data, dimension, gold, xs, xs_without, dims, options))
      model.dimensions.push_back(std::move(*dm));
  return model;
}

Prediction predict(const TrainedModel& model, const DimensionModel& dim,
                   const std::set<std::string>& features, std::size_t top) {
  Sparse x = vectorize(model.index, features, model.rule_scale);
  std::vector<double> p = probabilities(dim.weights, dim.bias, x);
  Prediction out;
  for (std::size_t k = 0; k < p.size(); ++k) out.probabilities[dim.labels[k]] = p[k];
  std::size_t best = argmax(p);
  out.label = dim.labels[best];
  out.probability = p[best];
  // A feature's pull toward the chosen label: its value times (its weight for the label minus
  // its probability-weighted mean weight).
  std::vector<std::pair<double, std::string>> pulls;
  for (const auto& [i, v] : x) {
    double mean = 0;
    for (std::size_t k = 0; k < p.size(); ++k) mean += p[k] * dim.weights[k][i];
    double pull = v * (dim.weights[best][i] - mean);
    if (pull > 0) pulls.push_back({-pull, model.features[i]});
  }
  std::sort(pulls.begin(), pulls.end());
  for (std::size_t j = 0; j < pulls.size() && j < top; ++j)
    out.top_features.push_back({pulls[j].second, -pulls[j].first});
  return out;
}

namespace {

nlohmann::json calibration_json(const std::string& method, const Calibration& c,
                                const std::optional<double>& threshold) {
  nlohmann::json blocks = nlohmann::json::array();
  for (const auto& [from, p] : c.blocks) blocks.push_back({from, p});
  return {{"method", method},
          {"blocks", std::move(blocks)},
          {"threshold", threshold ? nlohmann::json(*threshold) : nlohmann::json()}};
}

OutOfFoldCalibration calibration_from_json(const nlohmann::json& j) {
  OutOfFoldCalibration out;
  out.method = j.at("method").get<std::string>();
  for (const auto& b : j.at("blocks"))
    out.calibration.blocks.push_back({b.at(0).get<double>(), b.at(1).get<double>()});
  if (!j.at("threshold").is_null()) out.threshold = j.at("threshold").get<double>();
  return out;
}

nlohmann::json model_json(const TrainedModel& m) {
  nlohmann::json dims = nlohmann::json::array();
  for (const DimensionModel& d : m.dimensions) {
    nlohmann::json w = nlohmann::json::array();
    for (const auto& row : d.weights) {
      nlohmann::json r = nlohmann::json::array();
      for (double v : row) r.push_back(std::round(v * 1e7) / 1e7);
      w.push_back(std::move(r));
    }
    nlohmann::json blocks = nlohmann::json::array();
    for (const auto& [from, p] : d.calibration.blocks) blocks.push_back({from, p});
    dims.push_back({{"dimension", d.dimension},
                    {"labels", d.labels},
                    {"lambda", d.lambda},
                    {"bias", d.bias},
                    {"weights", std::move(w)},
                    {"calibration_method", d.calibration_method},
                    {"calibration", std::move(blocks)},
                    {"threshold", d.threshold ? nlohmann::json(*d.threshold) : nlohmann::json()},
                    {"predictor", d.predictor},
                    {"blend_weight", d.blend_weight},
                    {"rules_calibration",
                     calibration_json(d.rules_calibration.method, d.rules_calibration.calibration,
                                      d.rules_calibration.threshold)},
                    {"blend_calibration",
                     calibration_json(d.blend_calibration.method, d.blend_calibration.calibration,
                                      d.blend_calibration.threshold)}});
  }
  return {{"format", kFormat},
          {"rule_scale", m.rule_scale},
          {"features", m.features},
          {"dimensions", std::move(dims)},
          {"execution", execution_weights_json(m.execution)}};
}

TrainedModel model_from_json(std::int64_t id, const std::string& text) {
  const std::string where = "trained model " + std::to_string(id);
  TrainedModel m;
  m.id = id;
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    if (j.at("format").get<int>() != kFormat)
      throw UserError(where + ": unknown format " + j.at("format").dump() +
                      " (train again with this convfail)");
    m.rule_scale = j.at("rule_scale").get<double>();
    m.features = j.at("features").get<std::vector<std::string>>();
    for (std::size_t i = 0; i < m.features.size(); ++i) m.index[m.features[i]] = i;
    for (const auto& d : j.at("dimensions")) {
      DimensionModel dm;
      dm.dimension = d.at("dimension").get<std::string>();
      dm.labels = d.at("labels").get<std::vector<std::string>>();
      dm.lambda = d.at("lambda").get<double>();
      dm.bias = d.at("bias").get<std::vector<double>>();
      dm.weights = d.at("weights").get<std::vector<std::vector<double>>>();
      // Models stored before calibration have neither key: raw probabilities.
      if (d.contains("calibration"))
        for (const auto& b : d.at("calibration"))
          dm.calibration.blocks.push_back({b.at(0).get<double>(), b.at(1).get<double>()});
      if (d.contains("calibration_method"))
        dm.calibration_method = d.at("calibration_method").get<std::string>();
      if (d.contains("threshold") && !d.at("threshold").is_null())
        dm.threshold = d.at("threshold").get<double>();
      // Models stored before the per-dimension choice have none of these: the model decides.
      if (d.contains("predictor")) {
        dm.predictor = d.at("predictor").get<std::string>();
        if (!is_predictor(dm.predictor))
          throw UserError(where + ": dimension " + dm.dimension + ": unknown predictor \"" +
                          dm.predictor + "\"");
        dm.blend_weight = d.at("blend_weight").get<double>();
        dm.rules_calibration = calibration_from_json(d.at("rules_calibration"));
        dm.blend_calibration = calibration_from_json(d.at("blend_calibration"));
      }
      bool ok = !dm.labels.empty() && dm.bias.size() == dm.labels.size() &&
                dm.weights.size() == dm.labels.size();
      for (const auto& row : dm.weights) ok = ok && row.size() == m.features.size();
      if (!ok) throw UserError(where + ": dimension " + dm.dimension + " has inconsistent sizes");
      m.dimensions.push_back(std::move(dm));
    }
    if (j.contains("execution")) m.execution = execution_weights_from_json(j.at("execution"));
  } catch (const nlohmann::json::exception& e) {
    throw UserError(where + ": malformed: " + e.what());
  }
  return m;
}

}  // namespace

namespace {

// The rules' side of one example (features, decisions, confidence) appended to `view`.
void add_rules_view(const Engine& engine, const Segments& segments, const Classification& c,
                    RulesView& view) {
  view.examples.push_back(issue_features(segments, c));
  for (const auto& dim : engine.taxonomy().dimensions()) {
    const Decision* dec = c.decision(dim.id);
    view.rules_labels[dim.id].push_back(!dec || !dec->label ? kAbstained : *dec->label);
    view.rules_confidence[dim.id].push_back(dec ? dec->confidence : 0.0);
  }
}

}  // namespace

LabeledExamples labeled_examples(Db& db, const Engine& engine,
                                 const std::vector<const GoldItem*>& items,
                                 const ExecutionVerdicts& verdicts, bool correct) {
  LabeledExamples out;
  TrainingData& data = out.data;
  std::vector<std::string> dims;
  for (const auto& d : engine.taxonomy().dimensions()) {
    dims.push_back(d.id);
    if (d.abstain_label) data.abstain_labels[d.id] = *d.abstain_label;
  }
  std::vector<Segments> all_segments;
  std::vector<Classification> all_rules;
  RulesView view;
  for (const GoldItem* g : items) {
    // Only the given items' issues are read from the store.
    std::optional<IssueText> issue = load_issue_text(db, g->repo, g->number);
    if (!issue) {
      ++out.missing;
      continue;
    }
    Segments segments = segment_issue(*issue);
    Classification c = engine.classify(*issue, segments);
    add_rules_view(engine, segments, c, view);
    data.cv_group.push_back(g->fold.value_or(-1));
    auto v = verdicts.find(issue->issue_id);
    data.verdicts.push_back(v == verdicts.end() ? std::vector<ExecutionVerdict>{} : v->second);
    std::string part = lower(issue->repo) + "#" + std::to_string(issue->number);
    for (const std::string& d : dims) {
      auto it = g->values.find(d);
      std::string label = it == g->values.end() ? "" : it->second;
      data.labels[d].push_back(label);
      part += "\t" + d + "=" + label;
    }
    out.hash_parts.push_back(part);
    out.keys.push_back(issue->repo + "#" + std::to_string(issue->number));
    out.items.push_back(g);
    if (correct) {
      all_segments.push_back(std::move(segments));
      all_rules.push_back(std::move(c));
    }
  }
  data.examples = std::move(view.examples);
  data.rules_labels = std::move(view.rules_labels);
  data.rules_confidence = std::move(view.rules_confidence);
  std::set<int> groups(data.cv_group.begin(), data.cv_group.end());
  if (!correct || groups.size() < 2 || groups.count(-1)) return out;
  // The correction: per held-out fold, what the rules the other folds support decide.
  std::vector<std::vector<RuleHit>> fired;
  for (const Classification& c : all_rules) {
    fired.emplace_back();
    for (const Evidence& e : c.evidence) fired.back().push_back({e.rule_id, e.dimension, e.label});
  }
  for (int g : groups) {
    RulesView& without = data.rules_without[g];
    without.dropped = rules_unsupported_without(fired, data.labels, data.cv_group, g);
    for (std::size_t i = 0; i < all_rules.size(); ++i) {
      Classification c;
      for (const Evidence& e : all_rules[i].evidence)
        if (!without.dropped.count(e.rule_id)) c.evidence.push_back(e);
      c.decisions = engine.decide(c.evidence);
      add_rules_view(engine, all_segments[i], c, without);
    }
  }
  return out;
}

TrainSummary train_and_store(Db& db, const Engine& engine, const GoldSet& gold,
                             const std::set<int>& folds, const FitOptions& options,
                             const ExecutionVerdicts& verdicts) {
  if (!folds.empty() && !gold.has_folds)
    throw UserError(gold.source + ": --folds needs a gold set with a fold column");
  TrainSummary s;
  s.folds.assign(folds.begin(), folds.end());
  std::vector<const GoldItem*> selected;
  for (const GoldItem& g : gold.items)
    if (in_folds(g, folds)) selected.push_back(&g);
  std::sort(selected.begin(), selected.end(), [](const GoldItem* a, const GoldItem* b) {
    return issue_key(a->repo, a->number) < issue_key(b->repo, b->number);
  });
  s.gold_items = static_cast<long>(selected.size());
  if (selected.empty())
    throw UserError(gold.source + ": no gold labels" +
                    (folds.empty() ? std::string() : " in the selected folds"));

  LabeledExamples ex = labeled_examples(db, engine, selected, verdicts, true);
  s.missing = ex.missing;
  TrainingData& data = ex.data;
  std::vector<std::string>& hash_parts = ex.hash_parts;
  std::vector<std::string>& keys = ex.keys;
  if (data.examples.empty())
    throw UserError(gold.source + ": none of the " + std::to_string(s.gold_items) +
                    " gold issue(s) is stored (run import first)");
  s.issues = static_cast<long>(data.examples.size());
  s.training_hash = fnv1a_hex(hash_parts);
  s.model = fit_model(data, options);
  if (s.model.dimensions.empty()) throw UserError(gold.source + ": the gold rows have no labels");
  s.model.execution = calibrate_execution_weights(data.verdicts, data.labels);
  s.model.rules_hash = engine.rules().hash;

  nlohmann::json params = train_summary_json(s);
  params.erase("model_id");
  Transaction tx(db);
  Stmt ins(db,
           "INSERT INTO trained_models (format, rules_hash, gold_source, folds_json, "
           "training_hash, issue_count, issues_json, params_json, model_json) "
           "VALUES (?,?,?,?,?,?,?,?,?)");
  ins.bind(1, kFormat).bind(2, s.model.rules_hash).bind(3, gold.source);
  ins.bind(4, nlohmann::json(s.folds).dump()).bind(5, s.training_hash);
  ins.bind(6, static_cast<std::int64_t>(s.issues)).bind(7, nlohmann::json(keys).dump());
  ins.bind(8, params.dump()).bind(9, model_json(s.model).dump());
  ins.run();
  s.model_id = s.model.id = db.last_insert_id();
  tx.commit();
  return s;
}

std::optional<TrainedModel> load_latest_model(Db& db) {
  Stmt q(db, "SELECT id, rules_hash, model_json FROM trained_models ORDER BY id DESC LIMIT 1");
  if (!q.step()) return std::nullopt;
  TrainedModel m = model_from_json(q.int64(0), q.text(2));
  m.rules_hash = q.text(1);
  return m;
}

std::optional<RunTrainingSet> run_training_set(Db& db, std::int64_t run_id) {
  Stmt st(db,
          "SELECT m.id, m.folds_json, m.issues_json FROM classifier_runs r JOIN trained_models m "
          "ON m.id = json_extract(r.params_json, '$.model.id') WHERE r.id = ?");
  st.bind(1, run_id);
  if (!st.step()) return std::nullopt;
  RunTrainingSet out;
  out.model_id = st.int64(0);
  try {
    out.folds = nlohmann::json::parse(st.text(1)).get<std::vector<int>>();
    out.issues = nlohmann::json::parse(st.text(2)).get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& e) {
    throw UserError("trained model " + std::to_string(out.model_id) +
                    ": unreadable folds or issues (" + e.what() + ")");
  }
  return out;
}

namespace {

nlohmann::json cv_selective_json(const SelectiveEval& s) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& p : s.points)
    out["coverage_" + std::to_string(p.percent)] = {
        {"n", p.n}, {"accuracy", p.accuracy}, {"kappa", p.kappa}, {"threshold", p.threshold}};
  if (s.human_share)
    out["hybrid"] = {
        {"human_share", *s.human_share}, {"human", s.human_labeled}, {"kappa", s.hybrid_kappa}};
  return out;
}

nlohmann::json choice_json(const DimensionModel& d) {
  const PredictorChoice& c = d.choice;
  if (c.predictor.empty()) return nullptr;
  nlohmann::json cv = nlohmann::json::object();
  for (auto [name, f] : {std::pair{kPredictorRules, &c.rules}, std::pair{kPredictorModel, &c.model},
                         std::pair{kPredictorBlend, &c.blend}}) {
    OutOfFoldCalibration cal = d.calibration_of(name);
    cv[name] = {{"kappa", f->kappa},
                {"accuracy", f->accuracy},
                {"uncorrected_kappa", f->raw_kappa},
                {"uncorrected_accuracy", f->raw_accuracy},
                {"calibration_method", cal.method},
                {"ece", cal.ece},
                {"threshold", cal.threshold ? nlohmann::json(*cal.threshold) : nlohmann::json()},
                {"selective", cv_selective_json(cal.selective)}};
  }
  return {{"predictor", c.predictor},
          {"blend_weight", c.blend_weight},
          {"challenger", c.challenger},
          {"gain", c.gain},
          {"win_share", c.win_share},
          {"margin", c.options.margin},
          {"min_win_share", c.options.min_win_share},
          {"resamples", c.options.resamples},
          {"corrected", c.corrected},
          {"dropped_rules_per_fold", c.dropped_rules},
          {"cv", cv}};
}

}  // namespace

nlohmann::json train_summary_json(const TrainSummary& s) {
  nlohmann::json dims = nlohmann::json::object();
  for (const DimensionModel& d : s.model.dimensions) {
    nlohmann::json cv = nlohmann::json::object();
    for (const auto& [lambda, kappa] : d.cv_kappa) cv[std::to_string(lambda)] = kappa;
    dims[d.dimension] = {
        {"n", d.n},
        {"labels", d.labels},
        {"lambda", d.lambda},
        {"cv_kappa", d.cv_kappa.count(d.lambda) ? d.cv_kappa.at(d.lambda) : 0.0},
        {"cv_accuracy", d.cv_accuracy},
        {"cv_kappa_by_lambda", cv},
        {"rules_kappa", d.rules_kappa},
        {"rules_accuracy", d.rules_accuracy},
        {"calibration_method", d.calibration_method},
        {"cv_raw_ece", d.cv_raw_ece},
        {"cv_ece", d.cv_ece},
        {"threshold", d.threshold ? nlohmann::json(*d.threshold) : nlohmann::json()},
        {"cv_selective", cv_selective_json(d.cv_selective)},
        {"predictor", d.predictor},
        {"choice", choice_json(d)}};
  }
  return {{"model_id", s.model_id},
          {"training_hash", s.training_hash},
          {"folds", s.folds},
          {"gold_items", s.gold_items},
          {"missing", s.missing},
          {"issues", s.issues},
          {"features", s.model.features.size()},
          {"dimensions", dims},
          {"execution", execution_weights_json(s.model.execution)}};
}

}  // namespace convfail::classifier
