// What one classify run stored about one issue, read back for the views that show an issue (the
// terminal's annotation view and the web's issue page, through views/dossier): the label per
// dimension with its confidence and calibrated probability, the rules' evidence with its spans,
// the execution evidence (repro verdicts that voted) and the extracted facts. The classifier owns
// these tables; other modules read them only through this.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"

namespace convfail::classifier {

struct StoredLabel {
  std::string dimension;
  std::optional<std::string> label, subtype;  // label: none when the run abstained
  double confidence = 0;
  std::optional<double> probability;  // calibrated, when the run stored a calibration
};

// One fired rule behind a label: where it matched (field, its index for comments, byte span).
struct StoredEvidence {
  std::string dimension, label, rule, field, matched_text;
  std::int64_t field_index = 0, span_start = 0, span_end = 0;
  double weight = 0;
};

// A stored repro verdict that voted for a label (classifier_execution_evidence).
struct StoredExecutionEvidence {
  std::string dimension, label, kind;
  double weight = 0;
  std::int64_t repro_run_id = 0;
  std::string run_kind, verdict;
  std::optional<std::string> step, signature;
  std::string summary;
};

struct StoredFact {
  std::string kind, value;
};

struct IssueRunOutput {
  std::int64_t run_id = 0;
  std::vector<StoredLabel> labels;                 // by dimension
  std::vector<StoredEvidence> evidence;            // heaviest first, then as stored
  std::vector<StoredExecutionEvidence> execution;  // by dimension, kind
  std::vector<StoredFact> facts;                   // by kind, value
};

// The output of run `run_id` for issue `issue_id` (empty lists when the run did not see it).
IssueRunOutput read_issue_output(Db& db, std::int64_t run_id, std::int64_t issue_id);

}  // namespace convfail::classifier
