// The manual label sets — one annotator's current labels, the consensus of annotators, the
// adjudicated labels — as one IssueLabels per issue. The sets of the other sources (a classifier
// run, hybrid) are labelsets/source_labels's, which may read the classifier too.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"

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

// Collects rows (issue_id, repo, number, created_at, dimension, value[, confidence]) into
// IssueLabels in issue order (a NULL value leaves the dimension out): the one reader of label rows,
// for manual labels here and a classifier run's (classifier/run_labels).
std::vector<IssueLabels> collect_label_rows(Stmt& st, bool with_confidence);

// The current labels of one annotator: their latest row per issue and dimension (a skip clears
// the value, an undo restores the value it carries). For an adjudicator, their decisions.
std::vector<IssueLabels> load_annotator_labels(Db& db, const std::string& annotator);

// The consensus of the annotators, usable as gold: per issue and dimension the latest
// adjudication, else the value every annotator holding a label agrees on (at least two of them).
std::vector<IssueLabels> load_consensus_labels(Db& db);

// The manual part of the hybrid source (labelsets/source_labels): per issue and dimension the
// latest adjudication, else ANNOTATOR's current label. Throws UserError when ANNOTATOR has never
// labeled.
std::vector<IssueLabels> load_adjudicated_labels(Db& db, const std::string& annotator);

}  // namespace convfail::labeling
