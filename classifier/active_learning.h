// Active learning: ranking unlabeled issues by the trained model's uncertainty, and the
// simulation `eval --simulate-annotation` runs: an annotator labeling a pool of gold issues batch
// by batch, in uncertainty order or in random order, the model refitted after every batch and its
// kappa measured on held-out issues: the learning curve that tells when to stop labeling.
#pragma once

#include <cstdint>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "classifier/engine.h"
#include "classifier/model.h"
#include "core/db.h"

namespace convfail::classifier {

// How unsure the model is of one issue, in [0, 1], higher = less sure: per dimension 1 - margin
// (top probability minus the second; "margin") or the entropy of the probabilities divided by
// log(number of labels) ("entropy"), averaged over the model's dimensions. A dimension with a
// single label counts 0.
double uncertainty(const TrainedModel& model, const std::set<std::string>& features,
                   const std::string& measure);

// Indices of `candidates` most uncertain first (ties: the order of `candidates`).
std::vector<std::size_t> rank_by_uncertainty(const TrainedModel& model,
                                             const std::vector<std::set<std::string>>& candidates,
                                             const std::string& measure);

// The feature sets (issue_features) of the stored issues of `ids` by issue id; ids that are not
// stored issues are left out.
std::map<std::int64_t, std::set<std::string>> features_by_issue(Db& db, const Engine& engine,
                                                                const std::set<std::int64_t>& ids);

// Issue id -> uncertainty.
using UncertaintyScores = std::map<std::int64_t, double>;

// `ids` most uncertain first by `scores` (ids without a score last; ties keep their order).
std::vector<std::int64_t> order_by_uncertainty(const std::vector<std::int64_t>& ids,
                                               const UncertaintyScores& scores);

// `annotate --queue uncertain`'s refits: fits a model on labeled examples and scores candidate
// issues in a background thread while the session goes on, which collects the scores when
// ready. Only copied plain data crosses to the thread (never the database). The destructor
// waits for a running refit.
class BackgroundRefit {
 public:
  using Candidates = std::vector<std::pair<std::int64_t, std::set<std::string>>>;
  bool running() const;
  // Starts a refit (fit_model on `data` with `fit`, then uncertainty of each candidate by
  // `measure`); false, nothing started, while one runs or its scores are not taken yet.
  bool start(TrainingData data, Candidates candidates, std::string measure, FitOptions fit);
  // The scores of a finished refit, once; nullopt while it runs or when none was started.
  // Rethrows what the refit threw.
  std::optional<UncertaintyScores> take();
  void wait() const;  // until a started refit is done

 private:
  std::future<UncertaintyScores> future_;
};

// One simulated study: the annotator labels examples of `pool` (indices into the data), the
// model is evaluated on `held_out` (disjoint from pool).
struct SimulationSplit {
  std::vector<std::size_t> pool;
  std::vector<std::size_t> held_out;
};

// The splits of examples by their cv_group (gold fold, -1 for none): with `held_out_folds`, one
// split (pool: the examples of `pool_folds`, held out: those of `held_out_folds`; the two must
// not share a fold); without, cross-validation inside the pool: one split per fold of
// `pool_folds`, that fold held out and the others the pool. Examples without a fold (every one
// of them, or none) are cut into 4 parts by position instead. Throws UsageError for overlapping
// folds, UserError when a split would be empty.
std::vector<SimulationSplit> fold_splits(const std::vector<int>& cv_group,
                                         const std::set<int>& pool_folds,
                                         const std::set<int>& held_out_folds);

struct SimulationOptions {
  std::size_t batch = 20;
  int seeds = 5;           // random orders (and uncertain-order first batches) averaged
  std::uint64_t seed = 1;  // the first; seed s uses seed + s
  std::string measure = "margin";
  std::vector<std::string> dimensions;  // printing order (empty: by name); others follow
  FitOptions fit;  // a single lambda (see FitOptions): no inner cross-validation per refit
};

struct CurvePoint {
  long labels = 0;                          // labels given per split (the pool's size caps it)
  std::map<std::string, double> uncertain;  // dimension -> kappa, mean over seeds
  std::map<std::string, double> random;
};

struct SimulationResult {
  std::size_t batch = 0;
  int seeds = 0;
  std::string measure;
  long pool = 0;      // largest pool of a split
  long held_out = 0;  // held-out examples over all splits (kappa pools their predictions)
  std::vector<std::string> dimensions;  // simulated, in printing order
  std::vector<CurvePoint> curve;
  std::map<std::string, double> final_kappa;  // every pool label given (both orders agree)
  // The fewest labels at which the mean curve first reaches final_kappa (minus 1e-9); nullopt
  // when it never does before the end.
  std::map<std::string, long> uncertain_reaches;
  std::map<std::string, long> random_reaches;
};

// Replays labeling for every split and seed: the first batch is the seed's random draw for both
// orders; uncertain order then takes the `batch` examples the model fitted on the labels so far is
// least sure of, random order the next ones of the draw. After each batch the model is fitted
// (examples in index order, so both orders fit the same model on the same set) and predicts the
// held-out examples; kappa per dimension pools the predictions of all splits at the same batch.
// Deterministic. Dimensions without a label in the data are left out.
SimulationResult simulate_annotation(const TrainingData& data,
                                     const std::vector<SimulationSplit>& splits,
                                     const SimulationOptions& options);

nlohmann::json simulation_json(const SimulationResult& r);
std::string simulation_text(const SimulationResult& r);

}  // namespace convfail::classifier
