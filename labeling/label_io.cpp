#include "labeling/label_io.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/csv.h"
#include "core/error.h"
#include "core/issue_schema.h"
#include "core/issue_store.h"
#include "core/json_util.h"
#include "core/text.h"
#include "labeling/label_sets.h"
#include "labeling/label_source.h"
#include "labeling/manual_labels.h"

namespace convfail::labeling {
namespace {

std::optional<std::string> cell(const CsvRecord& rec, int col) {
  if (col < 0 || col >= static_cast<int>(rec.fields.size())) return std::nullopt;
  std::string v = trim(rec.fields[col]);
  if (v.empty()) return std::nullopt;
  return v;
}

// Why a cell cannot be stored, or "" when it can: invalid UTF-8, NUL, or another control
// character (C0, DEL, C1). Notes may hold tabs and line breaks (LF or CRLF).
std::string cell_problem(const std::string& v, bool multiline) {
  std::size_t bad = utf8_invalid_at(v);
  if (bad != std::string::npos) return "invalid UTF-8 at byte " + std::to_string(bad + 1);
  for (std::size_t i = 0; i < v.size(); ++i) {
    auto c = static_cast<unsigned char>(v[i]);
    unsigned cp = c;
    if (c == 0xC2 && i + 1 < v.size()) cp = static_cast<unsigned char>(v[i + 1]);  // U+0080..
    bool control = c < 0x20 || c == 0x7F || (c == 0xC2 && cp >= 0x80 && cp <= 0x9F);
    if (!control) continue;
    if (multiline &&
        (c == '\t' || c == '\n' || (c == '\r' && i + 1 < v.size() && v[i + 1] == '\n')))
      continue;
    char buf[32];
    std::snprintf(buf, sizeof buf, "U+%04X", cp);
    return std::string(c == 0 ? "a NUL character" : "control character ") + (c == 0 ? "" : buf) +
           " at byte " + std::to_string(i + 1);
  }
  return "";
}

// An issue's labels as JSON members, null where a dimension has none.
void put_label_values(nlohmann::json& j, const std::map<std::string, std::string>& values) {
  for (const auto& dim : manual_dimensions()) {
    auto it = values.find(dim);
    j[dim] = it == values.end() ? nlohmann::json() : nlohmann::json(it->second);
  }
}

// One exported record: a line of JSONL at once, or an element of the JSON array printed at the end.
void put_record(LabelFormat format, nlohmann::json j, std::ostream& out, nlohmann::json& array) {
  if (format == LabelFormat::kJsonl)
    out << json_text(j) << "\n";
  else
    array.push_back(std::move(j));
}

// Errors of one import, named "ORIGIN:LINE: what".
struct ImportPlace {
  std::string origin;
  UserError at(std::int64_t line, const std::string& what) const {
    return UserError(terminal_safe(origin) + ":" + std::to_string(line) + ": " + what);
  }
};

// Cells exported with a formula guard (`'=...`, core/csv.h) read back as written; nothing that
// cannot be printed back (invalid UTF-8, NUL, control characters) is stored.
void check_cells(std::vector<CsvRecord>& records, const ImportPlace& place) {
  for (CsvRecord& rec : records) {
    for (std::size_t i = 0; i < rec.fields.size(); ++i) {
      rec.fields[i] = csv_unneutralise(rec.fields[i]);
      const CsvRecord& head = records.front();
      std::string name = i < head.fields.size() ? lower(trim(head.fields[i], " \t")) : "";
      bool note =
          name == "note" || (name.size() > 5 && name.compare(name.size() - 5, 5, "_note") == 0);
      std::string problem = cell_problem(rec.fields[i], note);
      if (!problem.empty()) {
        throw place.at(rec.line,
                       "column " + std::to_string(i + 1) +
                           (name.empty() || &rec == &head ? "" : " (" + terminal_safe(name) + ")") +
                           ": " + problem);
      }
    }
  }
}

// Where each column of a label CSV is (-1: absent).
struct LabelColumns {
  int repo = -1, number = -1, symptom = -1, cause = -1, subtype = -1, stage = -1, note = -1;
  int annotator = -1, kind = -1;
  std::map<std::string, int> dim_note;  // symptom_note, cause_note, ...: one dimension's note
};

LabelColumns read_header(const CsvRecord& header, const ImportPlace& place,
                         const LabelImportOptions& options) {
  std::map<std::string, int> col;
  for (int i = 0; i < static_cast<int>(header.fields.size()); ++i) {
    std::string name = lower(trim(header.fields[i], " \t"));
    if (col.count(name)) throw place.at(header.line, "duplicate column \"" + name + "\"");
    col[name] = i;
  }
  auto column = [&](const std::string& name) { return col.count(name) ? col[name] : -1; };
  LabelColumns c;
  c.repo = column("repo");
  c.number = column("number");
  if (c.repo < 0 || c.number < 0)
    throw place.at(header.line, "the header needs columns \"repo\" and \"number\"");
  c.symptom = column("symptom");
  c.cause = column("cause");
  c.subtype = column("subtype");
  c.stage = column("stage");
  c.note = column("note");
  if (c.symptom < 0 && c.cause < 0 && c.subtype < 0 && c.stage < 0)
    throw place.at(header.line, "no label column (symptom, cause, subtype or stage)");
  if (column("rater") >= 0 && column("annotator") >= 0)
    throw place.at(header.line, "both \"rater\" and \"annotator\" columns; keep one");
  c.annotator = column("rater") >= 0 ? column("rater") : column("annotator");
  c.kind = column("kind");
  if (c.annotator < 0 && !options.annotator)
    throw UsageError(place.origin + ": no rater/annotator column: give --annotator NAME");
  for (const std::string& dim : manual_dimensions())
    if (column(dim + "_note") >= 0) c.dim_note[dim] = column(dim + "_note");
  return c;
}

// One data row, checked: the issue, who labeled it and how, and the labels (values checked
// against the taxonomy before the issue is looked up, so a bad value is an error even for
// unknown issues).
struct LabelRow {
  std::string repo;
  std::int64_t number = 0;
  std::string annotator, kind;
  LabelChoice choice;
  std::map<std::string, std::string> dim_notes;
};

LabelRow read_row(const CsvRecord& rec, const CsvRecord& header, const LabelColumns& c,
                  const Taxonomy& tax, const LabelImportOptions& options,
                  const ImportPlace& place) {
  if (rec.fields.size() != header.fields.size())
    throw place.at(rec.line, std::to_string(rec.fields.size()) + " field(s), the header has " +
                                 std::to_string(header.fields.size()));
  LabelRow row;
  auto repo = cell(rec, c.repo);
  auto number_text = cell(rec, c.number);
  if (!repo || !valid_repo_name(*repo))
    throw place.at(rec.line, "repo " + quoted_excerpt(repo.value_or("")) + " must be OWNER/NAME");
  row.repo = *repo;
  try {
    std::size_t used = 0;
    row.number = number_text ? std::stoll(*number_text, &used) : 0;
    if (!number_text || used != number_text->size() || row.number <= 0 ||
        row.number > kMaxIssueNumber)
      throw std::exception();
  } catch (const std::exception&) {
    throw place.at(rec.line, "number " + quoted_excerpt(number_text.value_or("")) +
                                 " is not an integer in 1.." + std::to_string(kMaxIssueNumber));
  }
  // One rule: --annotator names the annotator of every row; a row that names another one is a
  // conflict, refused (never silently re-attributed either way).
  std::optional<std::string> annotator = cell(rec, c.annotator);
  if (annotator && options.annotator && *annotator != *options.annotator)
    throw place.at(rec.line, "the " + header.fields[c.annotator] + " column says " +
                                 quoted_excerpt(*annotator) + " but --annotator says " +
                                 quoted_excerpt(*options.annotator) + " (to import the rows as " +
                                 quoted_excerpt(*options.annotator) +
                                 ", drop or edit that column)");
  if (!annotator) annotator = options.annotator;
  if (!annotator) throw place.at(rec.line, "no annotator (empty rater cell and no --annotator)");
  row.annotator = *annotator;

  row.kind = cell(rec, c.kind).value_or("label");
  if (row.kind != "label" && row.kind != "adjudication")
    throw place.at(
        rec.line, "kind " + quoted_excerpt(row.kind) + " must be label or adjudication (or empty)");
  row.choice = LabelChoice{cell(rec, c.symptom), cell(rec, c.cause), cell(rec, c.subtype),
                           cell(rec, c.stage), cell(rec, c.note)};
  for (const auto& [dim, col] : c.dim_note)
    if (auto n = cell(rec, col)) row.dim_notes[dim] = *n;
  const LabelChoice& choice = row.choice;
  try {
    if (choice.symptom) checked_label(tax, "symptom", *choice.symptom);
    if (choice.stage) checked_label(tax, "stage", *choice.stage);
    if (choice.cause) {
      std::string cause = checked_label(tax, "cause", *choice.cause);
      if (choice.subtype) checked_subtype(tax, cause, *choice.subtype);
    }
  } catch (const UserError& e) {
    throw place.at(rec.line, e.what());
  }
  return row;
}

}  // namespace

LabelImportResult import_label_csv(Db& db, const Taxonomy& tax, const std::string& path,
                                   const LabelImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + ": cannot read the file");
  std::stringstream buf;
  buf << in.rdbuf();
  return import_label_csv_text(db, tax, buf.str(), path, options);
}

LabelImportResult import_label_csv_text(Db& db, const Taxonomy& tax, const std::string& text,
                                        const std::string& origin,
                                        const LabelImportOptions& options) {
  std::vector<CsvRecord> records;
  try {
    records = parse_csv(text);
  } catch (const UserError& e) {
    throw UserError(terminal_safe(origin) + ":" + e.what());
  }
  const ImportPlace place{origin};
  if (records.empty()) throw place.at(1, "empty file (expected a header with repo and number)");
  check_cells(records, place);
  const CsvRecord& header = records.front();
  const LabelColumns columns = read_header(header, place, options);

  LabelImportResult result;
  std::set<std::string> annotators;
  std::string source = "import:" + origin.substr(origin.find_last_of('/') + 1);
  Transaction tx(db);
  IssueStore issues(db);
  ManualLabels store(db);
  for (std::size_t r = 1; r < records.size(); ++r) {
    const CsvRecord& rec = records[r];
    ++result.rows;
    LabelRow row = read_row(rec, header, columns, tax, options, place);
    auto issue_id = issues.find_issue(row.repo, row.number);
    if (!issue_id && options.create_missing) {
      std::int64_t id = 0;
      issues.upsert_issue(row.repo, Json{{"number", row.number}}, &id);
      issue_id = id;
      ++result.created_issues;
    }
    if (!issue_id) {
      ++result.skipped_unknown;
      std::string ref = row.repo + "#" + std::to_string(row.number);
      if (std::find(result.unknown_issues.begin(), result.unknown_issues.end(), ref) ==
          result.unknown_issues.end())
        result.unknown_issues.push_back(ref);
      continue;
    }
    const LabelChoice& choice = row.choice;
    if (!choice.symptom && !choice.cause && !choice.subtype && !choice.stage) continue;
    try {
      LabelOutcome o = append_choice(store, tax, *issue_id, row.annotator, choice, source, row.kind,
                                     row.dim_notes);
      result.written += o.written;
      result.unchanged += o.unchanged;
      if (o.written) annotators.insert(row.annotator);
    } catch (const UserError& e) {
      throw place.at(rec.line, e.what());
    }
  }
  tx.commit();
  result.annotators.assign(annotators.begin(), annotators.end());
  return result;
}

std::int64_t export_labels(Db& db, const std::optional<std::string>& annotator, LabelFormat format,
                           std::ostream& out, bool raw_csv) {
  std::vector<std::string> who =
      annotator ? std::vector<std::string>{*annotator} : manual_annotators(db);
  ManualLabels store(db);
  // Whether the annotator's current labels of an issue are adjudications.
  Stmt adjudicated(db,
                   "SELECT count(*) FROM current_manual_labels WHERE issue_id=? AND annotator=? "
                   "AND kind='adjudication'");
  // A note belongs to one dimension: each dimension's current row's note in its own column.
  static const std::vector<std::string> columns = {
      "repo",  "number",       "annotator",  "symptom",      "cause",      "subtype",
      "stage", "symptom_note", "cause_note", "subtype_note", "stage_note", "kind"};
  if (format == LabelFormat::kCsv) out << csv_line(columns, raw_csv);
  nlohmann::json array = nlohmann::json::array();
  std::int64_t count = 0;
  for (const auto& name : who) {
    for (const IssueLabels& l : load_annotator_labels(db, name)) {
      std::map<std::string, std::string> notes;
      for (const std::string& dim : manual_dimensions()) {
        if (!l.values.count(dim)) continue;
        auto row = store.latest(l.issue_id, name, dim);
        if (row && row->note) notes[dim] = *row->note;
      }
      adjudicated.bind(1, l.issue_id).bind(2, name);
      std::string kind = adjudicated.step() && adjudicated.int64(0) > 0 ? "adjudication" : "";
      adjudicated.reset();
      auto value = [](const std::map<std::string, std::string>& m, const std::string& dim) {
        auto it = m.find(dim);
        return it == m.end() ? std::string() : it->second;
      };
      if (format == LabelFormat::kCsv) {
        std::vector<std::string> cells = {l.repo, std::to_string(l.number), name};
        for (const std::string& dim : manual_dimensions()) cells.push_back(value(l.values, dim));
        for (const std::string& dim : manual_dimensions()) cells.push_back(value(notes, dim));
        cells.push_back(kind);
        out << csv_line(cells, raw_csv);
      } else {
        nlohmann::json j = {{"repo", l.repo}, {"number", l.number}, {"annotator", name}};
        put_label_values(j, l.values);
        j["notes"] = notes;
        j["kind"] = kind.empty() ? "label" : kind;
        put_record(format, std::move(j), out, array);
      }
      ++count;
    }
  }
  if (format == LabelFormat::kJson) out << json_text(array, 2) << "\n";
  return count;
}

std::int64_t export_label_set(const std::vector<IssueLabels>& labels, const std::string& source,
                              LabelFormat format, std::ostream& out, bool raw_csv) {
  const LabelSource parsed = LabelSource::parse(source);
  const bool hybrid = parsed.hybrid();
  // The classifier's labels carry their confidence (hybrid: its automatic ones).
  const bool confident = hybrid || parsed.classifier();
  static const std::vector<std::string> dims = {"symptom", "cause", "stage"};
  std::vector<std::string> columns = {"repo",  "number",  "source", "symptom",
                                      "cause", "subtype", "stage"};
  if (hybrid)
    for (const auto& d : dims) columns.push_back(d + "_origin");
  if (confident)
    for (const auto& d : dims) columns.push_back(d + "_confidence");
  auto confidence = [](const IssueLabels& l, const std::string& dim) -> std::optional<double> {
    auto it = l.confidence.find(dim);
    if (it == l.confidence.end() || !l.values.count(dim)) return std::nullopt;
    return it->second;
  };
  if (format == LabelFormat::kCsv) out << csv_line(columns, raw_csv);
  nlohmann::json array = nlohmann::json::array();
  std::int64_t count = 0;
  for (const IssueLabels& l : labels) {
    auto value = [&](const std::string& dim, const std::map<std::string, std::string>& m) {
      auto it = m.find(dim);
      return it == m.end() ? std::string() : it->second;
    };
    if (format == LabelFormat::kCsv) {
      std::vector<std::string> cells = {l.repo,
                                        std::to_string(l.number),
                                        source,
                                        value("symptom", l.values),
                                        value("cause", l.values),
                                        value("subtype", l.values),
                                        value("stage", l.values)};
      if (hybrid)
        for (const auto& d : dims) cells.push_back(value(d, l.origin));
      if (confident)
        for (const auto& d : dims) {
          auto c = confidence(l, d);
          char buf[32] = "";
          if (c) std::snprintf(buf, sizeof buf, "%.4f", *c);
          cells.push_back(buf);
        }
      out << csv_line(cells, raw_csv);
    } else {
      nlohmann::json j = {{"repo", l.repo}, {"number", l.number}, {"source", source}};
      put_label_values(j, l.values);
      if (hybrid) j["origin"] = l.origin;
      if (confident) {
        nlohmann::json c = nlohmann::json::object();
        for (const auto& d : dims)
          if (auto v = confidence(l, d)) c[d] = *v;
        j["confidence"] = std::move(c);
      }
      put_record(format, std::move(j), out, array);
    }
    ++count;
  }
  if (format == LabelFormat::kJson) out << json_text(array, 2) << "\n";
  return count;
}

}  // namespace convfail::labeling
