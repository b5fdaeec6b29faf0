// A classify run's labels as a label set and its stored calibration: what the label sets of
// labelsets/ (classifier[:RUN], hybrid) and the annotation queues need of the classifier's
// tables, read here because the classifier owns them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/db.h"
#include "labeling/label_sets.h"

namespace convfail::classifier {

// The labels of a run (the latest complete run when run_id is empty; none when there is no run),
// with their raw confidence. Abstentions (NULL label) are left out of `values`; a cause's subtype
// rides along as "subtype".
std::vector<labeling::IssueLabels> run_labels(Db& db, std::optional<std::int64_t> run_id = {});

// `eval --store-calibration`'s output for one run (schema 0009).
struct StoredCalibration {
  // Calibrated dimension -> its stored threshold (empty: the target accuracy was never reached).
  std::map<std::string, std::optional<double>> thresholds;
  // (issue id, dimension) -> calibrated probability of the run's label.
  std::map<std::pair<std::int64_t, std::string>, double> probability;
};
StoredCalibration stored_calibration(Db& db, std::int64_t run_id);

}  // namespace convfail::classifier
