#include "classifier/active_learning.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <random>
#include <sstream>

#include "classifier/evaluation.h"
#include "classifier/issue_text.h"
#include "classifier/segment.h"
#include "core/error.h"
#include "labeling/agreement.h"

namespace convfail::classifier {

double uncertainty(const TrainedModel& model, const std::set<std::string>& features,
                   const std::string& measure) {
  if (measure != "margin" && measure != "entropy")
    throw UsageError("unknown uncertainty measure \"" + measure + "\" (margin or entropy)");
  if (model.dimensions.empty()) return 0;
  double sum = 0;
  for (const DimensionModel& dim : model.dimensions) {
    if (dim.labels.size() < 2) continue;
    Prediction p = predict(model, dim, features, 0);
    if (measure == "margin") {
      double first = 0, second = 0;
      for (const auto& [label, q] : p.probabilities) {
        if (q > first) {
          second = first;
          first = q;
        } else if (q > second) {
          second = q;
        }
      }
      sum += 1 - (first - second);
    } else {
      double h = 0;
      for (const auto& [label, q] : p.probabilities)
        if (q > 0) h -= q * std::log(q);
      sum += h / std::log(static_cast<double>(dim.labels.size()));
    }
  }
  return sum / static_cast<double>(model.dimensions.size());
}

std::vector<std::size_t> rank_by_uncertainty(const TrainedModel& model,
                                             const std::vector<std::set<std::string>>& candidates,
                                             const std::string& measure) {
  std::vector<std::pair<double, std::size_t>> scored;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    scored.push_back({-uncertainty(model, candidates[i], measure), i});
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::size_t> out;
  for (const auto& s : scored) out.push_back(s.second);
  return out;
}

std::map<std::int64_t, std::set<std::string>> features_by_issue(Db& db, const Engine& engine,
                                                                const std::set<std::int64_t>& ids) {
  std::map<std::int64_t, std::set<std::string>> out;
  if (ids.empty()) return out;
  for (const IssueText& issue : load_issue_texts(db)) {
    if (!ids.count(issue.issue_id)) continue;
    Segments segments = segment_issue(issue);
    out[issue.issue_id] = issue_features(segments, engine.classify(issue, segments));
  }
  return out;
}

std::vector<std::int64_t> order_by_uncertainty(const std::vector<std::int64_t>& ids,
                                               const UncertaintyScores& scores) {
  std::vector<std::pair<double, std::int64_t>> keyed;
  for (std::int64_t id : ids) {
    auto it = scores.find(id);
    keyed.push_back({it == scores.end() ? 1.0 : -it->second, id});  // unknown: after all
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::int64_t> out;
  for (const auto& k : keyed) out.push_back(k.second);
  return out;
}

bool BackgroundRefit::running() const {
  return future_.valid() && future_.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
}

bool BackgroundRefit::start(TrainingData data, Candidates candidates, std::string measure,
                            FitOptions fit) {
  if (future_.valid()) return false;
  future_ =
      std::async(std::launch::async, [data = std::move(data), candidates = std::move(candidates),
                                      measure = std::move(measure), fit = std::move(fit)] {
        TrainedModel model = fit_model(data, fit);
        UncertaintyScores scores;
        for (const auto& [id, features] : candidates)
          scores[id] = uncertainty(model, features, measure);
        return scores;
      });
  return true;
}

std::optional<UncertaintyScores> BackgroundRefit::take() {
  if (!future_.valid() || running()) return std::nullopt;
  return future_.get();
}

void BackgroundRefit::wait() const {
  if (future_.valid()) future_.wait();
}

namespace {

using DimPairs = std::map<std::string, labeling::LabelPairs>;

TrainedModel fit_on(const TrainingData& data, std::vector<std::size_t> rows,
                    const FitOptions& options) {
  std::sort(rows.begin(), rows.end());
  TrainingData sub;
  for (std::size_t i : rows) {
    sub.examples.push_back(data.examples[i]);
    sub.cv_group.push_back(0);
    for (const auto& [dim, gold] : data.labels) sub.labels[dim].push_back(gold[i]);
  }
  return fit_model(sub, options);
}

// Appends (gold, predicted) of the held-out examples per dimension.
void predict_held_out(const TrainedModel& model, const TrainingData& data,
                      const std::vector<std::size_t>& held_out,
                      const std::vector<std::string>& dims, DimPairs& out) {
  for (std::size_t i : held_out) {
    for (const std::string& d : dims) {
      const std::string& gold = data.labels.at(d)[i];
      if (gold.empty()) continue;
      const DimensionModel* dm = model.dimension(d);
      out[d].push_back({gold, dm ? predict(model, *dm, data.examples[i], 0).label : kAbstained});
    }
  }
}

double kappa_of(const labeling::LabelPairs& pairs) {
  return pairs.empty() ? 0 : labeling::cohen_kappa(pairs).kappa;
}

}  // namespace

std::vector<SimulationSplit> fold_splits(const std::vector<int>& cv_group,
                                         const std::set<int>& pool_folds,
                                         const std::set<int>& held_out_folds) {
  for (int f : held_out_folds)
    if (pool_folds.count(f))
      throw UsageError("fold " + std::to_string(f) + " is both in the pool and held out");
  std::vector<int> group = cv_group;
  bool folded = std::none_of(group.begin(), group.end(), [](int g) { return g < 0; });
  std::vector<SimulationSplit> out;
  if (!folded) {
    if (!held_out_folds.empty()) throw UsageError("held-out folds need a gold set with folds");
    for (std::size_t i = 0; i < group.size(); ++i) group[i] = static_cast<int>(i % 4);
  }
  if (folded && !held_out_folds.empty()) {
    SimulationSplit s;
    for (std::size_t i = 0; i < group.size(); ++i) {
      if (pool_folds.count(group[i])) s.pool.push_back(i);
      if (held_out_folds.count(group[i])) s.held_out.push_back(i);
    }
    out.push_back(std::move(s));
  } else {
    std::set<int> folds;
    for (std::size_t i = 0; i < group.size(); ++i)
      if (!folded || pool_folds.empty() || pool_folds.count(group[i])) folds.insert(group[i]);
    if (folds.size() < 2)
      throw UserError("simulation: cross-validation needs gold issues in at least two folds");
    for (int f : folds) {
      SimulationSplit s;
      for (std::size_t i = 0; i < group.size(); ++i) {
        if (!folds.count(group[i])) continue;
        (group[i] == f ? s.held_out : s.pool).push_back(i);
      }
      out.push_back(std::move(s));
    }
  }
  for (const SimulationSplit& s : out)
    if (s.pool.empty() || s.held_out.empty())
      throw UserError("simulation: no gold issue " +
                      std::string(s.pool.empty() ? "in the pool" : "held out"));
  return out;
}

namespace {

// The dimensions simulated: those asked for, then any other with gold labels; only those with at
// least one gold label.
std::vector<std::string> simulated_dimensions(const TrainingData& data,
                                              const SimulationOptions& options) {
  std::vector<std::string> dims;
  std::vector<std::string> wanted = options.dimensions;
  for (const auto& [d, gold] : data.labels)
    if (std::find(wanted.begin(), wanted.end(), d) == wanted.end()) wanted.push_back(d);
  for (const std::string& d : wanted) {
    auto it = data.labels.find(d);
    if (it != data.labels.end() && std::any_of(it->second.begin(), it->second.end(),
                                               [](const std::string& g) { return !g.empty(); }))
      dims.push_back(d);
  }
  return dims;
}

// Checks the splits (UserError for an empty or overlapping one), fills r.pool and r.held_out and
// returns the number of batches of the largest pool.
std::size_t check_splits(const std::vector<SimulationSplit>& splits,
                         const SimulationOptions& options, SimulationResult& r) {
  std::size_t batches = 0;
  for (const SimulationSplit& s : splits) {
    if (s.pool.empty() || s.held_out.empty())
      throw UserError("simulation: a split has an empty pool or held-out set");
    std::set<std::size_t> pool(s.pool.begin(), s.pool.end());
    for (std::size_t i : s.held_out)
      if (pool.count(i)) throw UserError("simulation: the pool and the held-out set overlap");
    r.pool = std::max(r.pool, static_cast<long>(s.pool.size()));
    r.held_out += static_cast<long>(s.held_out.size());
    batches = std::max(batches, (s.pool.size() + options.batch - 1) / options.batch);
  }
  if (splits.empty()) throw UserError("simulation: no split");
  return batches;
}

// One seed on one split: after each batch, the held-out predictions of the model fitted on the
// labels given so far, in uncertain order (`uncertain[b]`) and in random order (`random[b]`).
// The whole pool gives `final_pairs`, the same for both orders.
void simulate_split(const TrainingData& data, const SimulationSplit& s,
                    const std::vector<std::string>& dims, const SimulationOptions& options,
                    int seed, const DimPairs& final_pairs, std::vector<DimPairs>& uncertain,
                    std::vector<DimPairs>& random) {
  const std::size_t batches = uncertain.size();
  std::mt19937_64 rng(options.seed + static_cast<std::uint64_t>(seed));
  std::vector<std::size_t> order = s.pool;
  for (std::size_t i = order.size(); i > 1; --i)
    std::swap(order[i - 1], order[static_cast<std::size_t>(rng() % i)]);  // portable draw
  std::vector<std::size_t> labeled(order.begin(),
                                   order.begin() + std::min(options.batch, order.size()));
  std::vector<std::size_t> rest(order.begin() + static_cast<long>(labeled.size()), order.end());
  TrainedModel current;  // fitted on `labeled` (uncertain order) after the last batch
  for (std::size_t b = 0; b < batches; ++b) {
    std::size_t n = std::min((b + 1) * options.batch, order.size());
    if (n == order.size()) {  // the whole pool: the final model
      for (const auto& [d, pairs] : final_pairs) {
        uncertain[b][d].insert(uncertain[b][d].end(), pairs.begin(), pairs.end());
        random[b][d].insert(random[b][d].end(), pairs.begin(), pairs.end());
      }
      continue;
    }
    std::vector<std::size_t> random_set(order.begin(), order.begin() + static_cast<long>(n));
    predict_held_out(fit_on(data, random_set, options.fit), data, s.held_out, dims, random[b]);
    if (b > 0) {
      std::vector<std::set<std::string>> candidates;
      for (std::size_t i : rest) candidates.push_back(data.examples[i]);
      std::vector<std::size_t> ranked = rank_by_uncertainty(current, candidates, options.measure);
      std::vector<std::size_t> keep;
      std::size_t want = n - labeled.size();
      std::vector<bool> taken(rest.size(), false);
      for (std::size_t j = 0; j < ranked.size() && j < want; ++j) taken[ranked[j]] = true;
      for (std::size_t j = 0; j < rest.size(); ++j) (taken[j] ? labeled : keep).push_back(rest[j]);
      rest = std::move(keep);
    }
    current = fit_on(data, labeled, options.fit);
    predict_held_out(current, data, s.held_out, dims, uncertain[b]);
  }
}

// The learning curves (kappa summed over the seeds, averaged here) and the number of labels at
// which each order first reaches the final kappa.
void add_curves(const std::vector<std::map<std::string, double>>& sum_u,
                const std::vector<std::map<std::string, double>>& sum_r,
                const SimulationOptions& options, SimulationResult& r) {
  for (std::size_t b = 0; b < sum_u.size(); ++b) {
    CurvePoint p;
    p.labels =
        static_cast<long>(std::min((b + 1) * options.batch, static_cast<std::size_t>(r.pool)));
    for (const std::string& d : r.dimensions) {
      p.uncertain[d] = sum_u[b].at(d) / options.seeds;
      p.random[d] = sum_r[b].at(d) / options.seeds;
    }
    r.curve.push_back(std::move(p));
  }
  for (const std::string& d : r.dimensions) {
    for (const CurvePoint& p : r.curve) {
      if (!r.uncertain_reaches.count(d) && p.uncertain.at(d) >= r.final_kappa[d] - 1e-9)
        r.uncertain_reaches[d] = p.labels;
      if (!r.random_reaches.count(d) && p.random.at(d) >= r.final_kappa[d] - 1e-9)
        r.random_reaches[d] = p.labels;
    }
  }
}

}  // namespace

SimulationResult simulate_annotation(const TrainingData& data,
                                     const std::vector<SimulationSplit>& splits,
                                     const SimulationOptions& options) {
  if (options.batch < 1) throw UsageError("--batch must be at least 1");
  if (options.seeds < 1) throw UsageError("--seeds must be at least 1");
  SimulationResult r;
  r.batch = options.batch;
  r.seeds = options.seeds;
  r.measure = options.measure;
  const std::vector<std::string> dims = simulated_dimensions(data, options);
  r.dimensions = dims;
  const std::size_t batches = check_splits(splits, options, r);

  // Every pool label given: the same model for both orders and every seed.
  std::vector<DimPairs> final_by_split(splits.size());
  DimPairs final_pairs;
  for (std::size_t k = 0; k < splits.size(); ++k) {
    predict_held_out(fit_on(data, splits[k].pool, options.fit), data, splits[k].held_out, dims,
                     final_by_split[k]);
    for (auto& [d, pairs] : final_by_split[k])
      final_pairs[d].insert(final_pairs[d].end(), pairs.begin(), pairs.end());
  }
  for (const std::string& d : dims) r.final_kappa[d] = kappa_of(final_pairs[d]);

  std::vector<std::map<std::string, double>> sum_u(batches), sum_r(batches);
  for (int seed = 0; seed < options.seeds; ++seed) {
    std::vector<DimPairs> pu(batches), pr(batches);
    for (std::size_t k = 0; k < splits.size(); ++k)
      simulate_split(data, splits[k], dims, options, seed, final_by_split[k], pu, pr);
    for (std::size_t b = 0; b < batches; ++b)
      for (const std::string& d : dims) {
        sum_u[b][d] += kappa_of(pu[b][d]);
        sum_r[b][d] += kappa_of(pr[b][d]);
      }
  }
  add_curves(sum_u, sum_r, options, r);
  return r;
}

nlohmann::json simulation_json(const SimulationResult& r) {
  nlohmann::json curve = nlohmann::json::array();
  for (const CurvePoint& p : r.curve)
    curve.push_back({{"labels", p.labels}, {"uncertain", p.uncertain}, {"random", p.random}});
  nlohmann::json dims = nlohmann::json::object();
  for (const auto& [d, k] : r.final_kappa) {
    auto u = r.uncertain_reaches.find(d);
    auto q = r.random_reaches.find(d);
    dims[d] = {{"final_kappa", k},
               {"uncertain_labels",
                u == r.uncertain_reaches.end() ? nlohmann::json() : nlohmann::json(u->second)},
               {"random_labels",
                q == r.random_reaches.end() ? nlohmann::json() : nlohmann::json(q->second)}};
  }
  return {{"batch", r.batch},  {"seeds", r.seeds},       {"uncertainty", r.measure},
          {"pool", r.pool},    {"held_out", r.held_out}, {"curve", curve},
          {"dimensions", dims}};
}

std::string simulation_text(const SimulationResult& r) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3);
  out << "simulated annotation: pool of " << r.pool << " issue(s) per split, " << r.held_out
      << " held-out issue(s) in all, batches of " << r.batch << ", uncertainty " << r.measure
      << "; kappa on the held-out issues, mean of " << r.seeds << " seed(s)\n";
  out << "labels";
  for (const std::string& d : r.dimensions) out << "  " << d << " uncertain/random";
  out << "\n";
  for (const CurvePoint& p : r.curve) {
    out << std::setw(6) << p.labels;
    for (const std::string& d : r.dimensions) {
      std::string name = "  " + d + " uncertain/random";
      std::ostringstream cell;
      cell << std::fixed << std::setprecision(3) << p.uncertain.at(d) << "/" << p.random.at(d);
      out << std::setw(static_cast<int>(name.size())) << cell.str();
    }
    out << "\n";
  }
  for (const std::string& d : r.dimensions) {
    out << d << ": final kappa " << r.final_kappa.at(d) << " (all " << r.pool
        << " labels); reached by uncertain order at " << r.uncertain_reaches.at(d)
        << " labels, by random order at " << r.random_reaches.at(d) << "\n";
  }
  return out.str();
}

}  // namespace convfail::classifier
