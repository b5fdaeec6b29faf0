// Reading the current labels of one source — a manual annotator, the latest classifier run, or
// the consensus of annotators — as one IssueLabels per issue. What eval and reports consume.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"
#include "labeling/label_source.h"

namespace convfail::labeling {

struct IssueLabels {
  std::int64_t issue_id = 0;
  std::string repo;  // owner/name
  std::int64_t number = 0;
  std::optional<std::string> created_at;
  std::map<std::string, std::string> values;  // dimension -> label (symptom, cause, subtype, stage)
  // Only for the classifier: dimension -> confidence.
  std::map<std::string, double> confidence;
  // Only for the hybrid source: dimension -> "manual" or "automatic".
  std::map<std::string, std::string> origin;
};

// The raw rule confidence a classifier label needs in the hybrid source when the run has no stored
// calibration and no --min-confidence is given. On jajal2024 folds 0-3 the labels of raw
// confidence >= 0.6 are right 0.98 (symptom), 0.80 (cause) and 0.85 (stage) of the time; a stored
// calibration's per-dimension threshold is the better default.
constexpr double kDefaultRawMinConfidence = 0.6;

// The hybrid source: per issue and dimension the manual label where one exists (the latest
// adjudication, then ANNOTATOR's label; without ANNOTATOR the consensus), else the latest
// classifier run's label where its confidence (calibrated when the run has a stored calibration,
// else raw) reaches `min_confidence` (default: the stored threshold of the dimension, else
// kDefaultRawMinConfidence), else nothing. A stored calibration whose target was not reached gives
// no automatic labels for that dimension unless `min_confidence` is given. The subtype follows the
// cause's origin. `origin` says which cells are manual. Throws UserError when ANNOTATOR has never
// labeled.
std::vector<IssueLabels> load_hybrid_labels(Db& db, const std::optional<std::string>& annotator,
                                            std::optional<double> min_confidence = {});

// Cells (issue, dimension; subtype not counted) of a hybrid label set resting on manual and on
// automatic labels.
struct OriginCounts {
  long manual = 0;
  long automatic = 0;
};
OriginCounts count_origins(const std::vector<IssueLabels>& labels);

// Source names: "classifier" (latest run, or classifier:RUN_ID), "consensus", "hybrid" or
// "hybrid:ANNOTATOR" (see load_hybrid_labels; `min_confidence` applies to it only), or an
// annotator. Throws UserError naming the sources that exist when the source has no labels.
// `source` is parsed by LabelSource::parse (UsageError for a malformed one).
std::vector<IssueLabels> load_label_set(Db& db, const std::string& source,
                                        std::optional<double> min_confidence = {});
std::vector<IssueLabels> load_label_set(Db& db, const LabelSource& source,
                                        std::optional<double> min_confidence = {});

// The sources that hold labels: "classifier" when a run exists, every annotator, "consensus".
std::vector<std::string> label_sources(Db& db);

// The current labels of one annotator: their latest row per issue and dimension (a skip clears
// the value, an undo restores the value it carries). For an adjudicator, their decisions.
std::vector<IssueLabels> load_annotator_labels(Db& db, const std::string& annotator);

// The consensus of the annotators, usable as gold: per issue and dimension the latest
// adjudication, else the value every annotator holding a label agrees on (at least two of them).
std::vector<IssueLabels> load_consensus_labels(Db& db);

// The labels of a classifier run (latest run when run_id is empty). Abstentions (NULL label) are
// left out of `values`.
std::vector<IssueLabels> load_classifier_labels(Db& db, std::optional<std::int64_t> run_id = {});

}  // namespace convfail::labeling
