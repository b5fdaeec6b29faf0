// Reading the current labels of one source — a manual annotator, the latest classifier run, or
// the consensus of annotators — as one IssueLabels per issue. What eval and reports consume.
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
};

// Source names: "classifier" (latest run, or classifier:RUN_ID), "consensus", or an annotator.
// Throws UserError naming the sources that exist when the source has no labels.
std::vector<IssueLabels> load_label_set(Db& db, const std::string& source);

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
