// The labels of any label source as one IssueLabels per issue: an annotator, the consensus
// (labeling/label_sets), a classifier run (classifier/run_labels) or the hybrid of manual and
// confident automatic labels. What eval, reports, exports and the web consume.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/db.h"
#include "labeling/label_sets.h"
#include "labeling/label_source.h"

namespace convfail::labelsets {

using labeling::IssueLabels;

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
// A classifier run that is unfinished (classify still writing it, or killed: run_status.h) is
// refused with UserError("classifier run N is unfinished: ...") unless `allow_partial`.
std::vector<IssueLabels> load_label_set(Db& db, const std::string& source,
                                        std::optional<double> min_confidence = {},
                                        bool allow_partial = false);
std::vector<IssueLabels> load_label_set(Db& db, const labeling::LabelSource& source,
                                        std::optional<double> min_confidence = {},
                                        bool allow_partial = false);

// Why the label set of `source` is partial, in one line: a classifier:RUN whose run is
// unfinished; nullopt for a complete run and every other source.
std::optional<std::string> partial_label_set(Db& db, const labeling::LabelSource& source);

// The sources that hold labels: "classifier" when a run exists, every annotator, "consensus".
std::vector<std::string> label_sources(Db& db);

}  // namespace convfail::labelsets
