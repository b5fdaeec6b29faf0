// `labels import` / `labels export`: manual labels from and to CSV (and JSONL on export).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/db.h"
#include "core/taxonomy.h"
#include "labeling/label_sets.h"

namespace convfail::labeling {

struct LabelImportOptions {
  // Annotator for rows without a rater/annotator column (or with an empty cell).
  std::optional<std::string> annotator;
  // Create bare placeholder issues for rows whose issue is not in the store.
  bool create_missing = false;
};

struct LabelImportResult {
  std::int64_t rows = 0;                    // data rows read
  std::int64_t written = 0;                 // manual_labels rows appended
  std::int64_t unchanged = 0;               // values equal to the annotator's current label
  std::int64_t skipped_unknown = 0;         // rows whose issue is not in the store (not written)
  std::int64_t created_issues = 0;          // placeholders made with create_missing
  std::vector<std::string> unknown_issues;  // "owner/name#N" of the skipped rows
  std::vector<std::string> annotators;      // who the written rows belong to, sorted
};

// Imports a CSV with a header holding `repo`, `number` and any of symptom, cause, subtype, stage,
// note (the note of every label of its row, as `label --note`), symptom_note, cause_note,
// subtype_note, stage_note (one dimension's note, instead of `note` for it); `rater` or
// `annotator` names the annotator per row (with options.annotator, a row naming another
// annotator is refused: FILE:LINE), `kind` (label or adjudication) what its values are. Values may
// be ids or the spreadsheet names of data/taxonomy.json. Other columns are ignored. A cell with
// invalid UTF-8, a NUL or another control character (notes may hold tab, LF, CRLF) is refused; a
// formula-guard apostrophe written by export is dropped (csv_unneutralise). Everything happens in
// one transaction: on any malformed row nothing is written and UserError("FILE:LINE: what is
// wrong") is thrown.
LabelImportResult import_label_csv(Db& db, const Taxonomy& tax, const std::string& path,
                                   const LabelImportOptions& options);
// The same for text already in memory; `origin` names it in errors and in the rows' source.
LabelImportResult import_label_csv_text(Db& db, const Taxonomy& tax, const std::string& text,
                                        const std::string& origin,
                                        const LabelImportOptions& options);

enum class LabelFormat { kCsv, kJsonl, kJson };

// Writes the current labels of one annotator (or of every annotator) as CSV with the header
// repo,number,annotator,symptom,cause,subtype,stage,symptom_note,cause_note,subtype_note,
// stage_note,kind — what import reads back (each note on its own dimension; kind is
// "adjudication" for an adjudicator's decisions, else empty) — or JSONL (one label object a line,
// "notes": dimension -> note) or JSON (one array of the same objects). CSV cells a spreadsheet
// would run as formulas are neutralised (core/csv.h; import restores them) unless `raw_csv`. Any
// stored text prints: invalid UTF-8 becomes U+FFFD in JSON. Returns the number of records written.
std::int64_t export_labels(Db& db, const std::optional<std::string>& annotator, LabelFormat format,
                           std::ostream& out, bool raw_csv = false);

// Writes a label set of any source (labelsets::load_label_set: classifier, consensus, hybrid)
// one record per issue: CSV header repo,number,source,symptom,cause,subtype,stage and, for a
// hybrid set, symptom_origin,cause_origin,stage_origin ("manual", "automatic" or empty), for a
// classifier or hybrid set symptom_confidence,cause_confidence,stage_confidence (four decimals,
// empty for a manual or missing label); JSONL and JSON objects with the same keys ("origin" and
// "confidence" objects). Cells neutralised as export_labels.
// Returns the number of records written.
std::int64_t export_label_set(const std::vector<IssueLabels>& labels, const std::string& source,
                              LabelFormat format, std::ostream& out, bool raw_csv = false);

}  // namespace convfail::labeling
