// Manual labels: writing and reading the append-only history (table manual_labels), checking
// label ids against the taxonomy, and `convfail label`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"
#include "core/issue_ref.h"
#include "core/json_util.h"
#include "core/taxonomy.h"

namespace convfail::labeling {

// The longest note a label may carry, as the web's request body cap (web/server.h max_body):
// ManualLabels::append refuses longer ones, `labels import` refuses the row, and history()
// cuts notes stored longer by earlier versions (ManualLabelRow::note_truncated).
inline constexpr std::size_t kMaxNoteBytes = 64 * 1024;

// The dimensions a person labels, in the order they are asked.
const std::vector<std::string>& manual_dimensions();  // symptom, cause, subtype, stage

struct ManualLabelRow {
  std::int64_t id = 0;
  std::int64_t issue_id = 0;
  std::string annotator;
  std::string dimension;
  std::optional<std::string> value;
  std::string kind;  // label | skip | adjudication | undo
  std::optional<std::string> note;
  bool note_truncated = false;  // history(): the stored note is longer than kMaxNoteBytes
  std::optional<std::string> source;
  std::string created_at;
};

// One history row as `labels history --json`, the web's label history and the issue dossier
// print it: id, annotator, dimension, kind, created_at, value, note, source (null when unset),
// and "note_truncated": true when the note was cut.
Json history_row_json(const ManualLabelRow& r);

// The one place that writes manual_labels (append only) and reads it back.
class ManualLabels {
 public:
  explicit ManualLabels(Db& db);
  // Throws UserError("note: ...") for a note longer than kMaxNoteBytes.
  std::int64_t append(std::int64_t issue_id, const std::string& annotator,
                      const std::string& dimension, const std::optional<std::string>& value,
                      const std::string& kind, const std::optional<std::string>& note,
                      const std::string& source);
  // The annotator's current value: their latest row (skip -> none, undo -> the value it restores).
  std::optional<std::string> current(std::int64_t issue_id, const std::string& annotator,
                                     const std::string& dimension);
  // The latest row of (issue, annotator, dimension), if any.
  std::optional<ManualLabelRow> latest(std::int64_t issue_id, const std::string& annotator,
                                       const std::string& dimension);
  // The current value as it was just before row `row_id` was written.
  std::optional<std::string> value_before(std::int64_t issue_id, const std::string& annotator,
                                          const std::string& dimension, std::int64_t row_id);
  // Undoes row `row_id` of `annotator` on `issue_id`: appends an "undo" row on its dimension that
  // restores the value the dimension had just before it (the one undo of the terminal session
  // and the web). Returns the new row's id; nullopt, writing nothing, when there is no such row
  // or it is another annotator's or another issue's.
  std::optional<std::int64_t> undo(std::int64_t issue_id, const std::string& annotator,
                                   std::int64_t row_id, const std::string& source);
  // Every row of an issue (of one annotator when given), oldest first; notes longer than
  // kMaxNoteBytes (stored before the cap) are read cut to it, so a page of them stays small.
  std::vector<ManualLabelRow> history(std::int64_t issue_id,
                                      const std::optional<std::string>& annotator = {});
  // Rows written with a given source (e.g. "annotate:3"), oldest first.
  std::vector<ManualLabelRow> rows_from_source(const std::string& source);
  // Row `id`, if it exists.
  std::optional<ManualLabelRow> row(std::int64_t id);
  // The id of the newest row (0 when there is none), and the ids of the rows of (issue,
  // annotator) written after row `after`: what one request appended.
  std::int64_t last_id();
  std::vector<std::int64_t> ids_after(std::int64_t after, std::int64_t issue_id,
                                      const std::string& annotator);
  // The current label of every annotator and dimension of one issue (view
  // current_manual_labels), by annotator and dimension.
  struct Current {
    std::string annotator, dimension;
    std::optional<std::string> value;
    std::string kind;  // of the row that set it
  };
  std::vector<Current> current_labels(std::int64_t issue_id);

 private:
  Db& db_;
  Stmt insert_;
  Stmt current_;
  Stmt before_;
};

// Annotators with at least one manual row (adjudicators included), sorted.
std::vector<std::string> manual_annotators(Db& db);

// Maps an id or spreadsheet name to the label id of `dimension`; throws UserError
// "unknown <dimension> "x"; valid: a, b, ..." otherwise. For "subtype" use checked_subtype.
std::string checked_label(const Taxonomy& tax, const std::string& dimension,
                          const std::string& value);
// A subtype of `cause`; throws UserError when the cause has no subtypes or the subtype is not one
// of them (naming the valid ones).
std::string checked_subtype(const Taxonomy& tax, const std::string& cause,
                            const std::string& value);

struct LabelChoice {
  std::optional<std::string> symptom, cause, subtype, stage, note;
};
struct LabelOutcome {
  int written = 0;    // rows appended
  int unchanged = 0;  // values equal to the annotator's current label (nothing appended)
};

// `convfail label`: checks every value first (a subtype needs the given cause, else the
// annotator's current cause), then appends one row per changed dimension in one transaction.
// A value equal to the current one is not appended again unless a different note comes with it.
LabelOutcome record_labels(Db& db, const Taxonomy& tax, std::int64_t issue_id,
                           const std::string& annotator, const LabelChoice& choice,
                           const std::string& source);

// The same without a transaction of its own (for callers that hold one, e.g. import). Throws
// UserError before writing anything when a value is invalid.
// `kind` is "label" or "adjudication". `notes` (dimension -> note), when given, is the note of
// those dimensions instead of choice.note (import's per-dimension note columns).
LabelOutcome append_choice(ManualLabels& store, const Taxonomy& tax, std::int64_t issue_id,
                           const std::string& annotator, const LabelChoice& choice,
                           const std::string& source, const std::string& kind = "label",
                           const std::map<std::string, std::string>& notes = {});

}  // namespace convfail::labeling
