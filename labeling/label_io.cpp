#include "labeling/label_io.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
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

// The longest row a labels CSV may hold: a few ids and up to five notes of kMaxNoteBytes.
constexpr std::size_t kMaxLabelRowBytes = std::size_t{1} << 20;

// Makes the error "ORIGIN:LINE: what is wrong".
using ImportFail = std::function<UserError(std::int64_t, const std::string&)>;

// Cells exported with a formula guard (`'=...`, core/csv.h) read back as written; nothing that
// cannot be printed back (invalid UTF-8, NUL, control characters) is stored.
void check_cells(CsvRecord& rec, const CsvRecord& head, const ImportFail& fail) {
  for (std::size_t i = 0; i < rec.fields.size(); ++i) {
    rec.fields[i] = csv_unneutralise(rec.fields[i]);
    std::string name = i < head.fields.size() ? lower(trim(head.fields[i], " \t")) : "";
    bool note =
        name == "note" || (name.size() > 5 && name.compare(name.size() - 5, 5, "_note") == 0);
    std::string problem = cell_problem(rec.fields[i], note);
    if (!problem.empty())
      throw fail(rec.line,
                 "column " + std::to_string(i + 1) +
                     (name.empty() || &rec == &head ? "" : " (" + terminal_safe(name) + ")") +
                     ": " + problem);
  }
}

// The columns of a labels CSV, from its header.
struct Columns {
  std::map<std::string, int> index;
  int repo = -1, number = -1, symptom = -1, cause = -1, subtype = -1, stage = -1, note = -1;
  int annotator = -1, kind = -1;
  std::map<std::string, int> dim_note;  // symptom_note, cause_note, ...: one dimension's note
  int column(const std::string& name) const {
    auto it = index.find(name);
    return it == index.end() ? -1 : it->second;
  }
};

Columns read_header(const CsvRecord& header, const std::string& origin,
                    const LabelImportOptions& options, const ImportFail& fail) {
  Columns c;
  for (int i = 0; i < static_cast<int>(header.fields.size()); ++i) {
    std::string name = lower(trim(header.fields[i], " \t"));
    if (c.index.count(name)) throw fail(header.line, "duplicate column \"" + name + "\"");
    c.index[name] = i;
  }
  c.repo = c.column("repo");
  c.number = c.column("number");
  if (c.repo < 0 || c.number < 0)
    throw fail(header.line, "the header needs columns \"repo\" and \"number\"");
  c.symptom = c.column("symptom"), c.cause = c.column("cause"), c.subtype = c.column("subtype"),
  c.stage = c.column("stage"), c.note = c.column("note");
  if (c.symptom < 0 && c.cause < 0 && c.subtype < 0 && c.stage < 0)
    throw fail(header.line, "no label column (symptom, cause, subtype or stage)");
  if (c.column("rater") >= 0 && c.column("annotator") >= 0)
    throw fail(header.line, "both \"rater\" and \"annotator\" columns; keep one");
  c.annotator = c.column("rater") >= 0 ? c.column("rater") : c.column("annotator");
  c.kind = c.column("kind");
  if (c.annotator < 0 && !options.annotator)
    throw UsageError(origin + ": no rater/annotator column: give --annotator NAME");
  for (const std::string& dim : manual_dimensions())
    if (c.column(dim + "_note") >= 0) c.dim_note[dim] = c.column(dim + "_note");
  return c;
}

// One labels import: the header's columns, then each row checked and appended.
class LabelRows {
 public:
  LabelRows(Db& db, const Taxonomy& tax, const CsvRecord& header, const std::string& origin,
            const LabelImportOptions& options, const ImportFail& fail)
      : tax_(tax),
        header_(header),
        c_(read_header(header, origin, options, fail)),
        options_(options),
        fail_(fail),
        source_("import:" + origin.substr(origin.find_last_of('/') + 1)),
        issues_(db),
        store_(db) {}

  void add(const CsvRecord& rec);
  LabelImportResult result() {
    result_.annotators.assign(annotators_.begin(), annotators_.end());
    return result_;
  }

 private:
  std::int64_t number_of(const CsvRecord& rec);
  std::string annotator_of(const CsvRecord& rec);
  std::optional<std::int64_t> issue_of(const std::string& repo, std::int64_t number);

  const Taxonomy& tax_;
  const CsvRecord& header_;
  Columns c_;
  const LabelImportOptions& options_;
  const ImportFail& fail_;
  std::string source_;
  IssueStore issues_;
  ManualLabels store_;
  LabelImportResult result_;
  std::set<std::string> annotators_;
};

std::int64_t LabelRows::number_of(const CsvRecord& rec) {
  auto number_text = cell(rec, c_.number);
  try {
    std::size_t used = 0;
    std::int64_t number = number_text ? std::stoll(*number_text, &used) : 0;
    if (!number_text || used != number_text->size() || number <= 0 || number > kMaxIssueNumber)
      throw std::exception();
    return number;
  } catch (const std::exception&) {
    throw fail_(rec.line, "number " + quoted_excerpt(number_text.value_or("")) +
                              " is not an integer in 1.." + std::to_string(kMaxIssueNumber));
  }
}

// One rule: --annotator names the annotator of every row; a row that names another one is a
// conflict, refused (never silently re-attributed either way).
std::string LabelRows::annotator_of(const CsvRecord& rec) {
  std::optional<std::string> annotator = cell(rec, c_.annotator);
  if (annotator && options_.annotator && *annotator != *options_.annotator)
    throw fail_(rec.line, "the " + header_.fields[c_.annotator] + " column says " +
                              quoted_excerpt(*annotator) + " but --annotator says " +
                              quoted_excerpt(*options_.annotator) + " (to import the rows as " +
                              quoted_excerpt(*options_.annotator) + ", drop or edit that column)");
  if (!annotator) annotator = options_.annotator;
  if (!annotator) throw fail_(rec.line, "no annotator (empty rater cell and no --annotator)");
  return *annotator;
}

std::optional<std::int64_t> LabelRows::issue_of(const std::string& repo, std::int64_t number) {
  auto issue_id = issues_.find_issue(repo, number);
  if (!issue_id && options_.create_missing) {
    std::int64_t id = 0;
    issues_.upsert_issue(repo, Json{{"number", number}}, &id);
    ++result_.created_issues;
    return id;
  }
  if (!issue_id) {
    ++result_.skipped_unknown;
    std::string ref = repo + "#" + std::to_string(number);
    if (std::find(result_.unknown_issues.begin(), result_.unknown_issues.end(), ref) ==
        result_.unknown_issues.end())
      result_.unknown_issues.push_back(ref);
  }
  return issue_id;
}

void LabelRows::add(const CsvRecord& rec) {
  if (rec.fields.size() != header_.fields.size())
    throw fail_(rec.line, std::to_string(rec.fields.size()) + " field(s), the header has " +
                              std::to_string(header_.fields.size()));
  ++result_.rows;
  auto repo = cell(rec, c_.repo);
  if (!repo || !valid_repo_name(*repo))
    throw fail_(rec.line, "repo " + quoted_excerpt(repo.value_or("")) + " must be OWNER/NAME");
  std::int64_t number = number_of(rec);
  std::string annotator = annotator_of(rec);
  std::string kind = cell(rec, c_.kind).value_or("label");
  if (kind != "label" && kind != "adjudication")
    throw fail_(rec.line,
                "kind " + quoted_excerpt(kind) + " must be label or adjudication (or empty)");
  LabelChoice choice{cell(rec, c_.symptom), cell(rec, c_.cause), cell(rec, c_.subtype),
                     cell(rec, c_.stage), cell(rec, c_.note)};
  std::map<std::string, std::string> dim_notes;
  for (const auto& [dim, col] : c_.dim_note)
    if (auto n = cell(rec, col)) dim_notes[dim] = *n;
  // Check values before looking the issue up, so a bad value is an error even for unknown
  // issues.
  try {
    if (choice.symptom) checked_label(tax_, "symptom", *choice.symptom);
    if (choice.stage) checked_label(tax_, "stage", *choice.stage);
    if (choice.cause) {
      std::string cause = checked_label(tax_, "cause", *choice.cause);
      if (choice.subtype) checked_subtype(tax_, cause, *choice.subtype);
    }
  } catch (const UserError& e) {
    throw fail_(rec.line, e.what());
  }
  auto issue_id = issue_of(*repo, number);
  if (!issue_id) return;
  if (!choice.symptom && !choice.cause && !choice.subtype && !choice.stage) return;
  try {
    LabelOutcome o =
        append_choice(store_, tax_, *issue_id, annotator, choice, source_, kind, dim_notes);
    result_.written += o.written;
    result_.unchanged += o.unchanged;
    if (o.written) annotators_.insert(annotator);
  } catch (const UserError& e) {
    throw fail_(rec.line, e.what());
  }
}

// Reads `in` one record at a time (never more than kMaxLabelRowBytes of it at once) and imports
// the rows in one transaction.
LabelImportResult import_label_stream(Db& db, const Taxonomy& tax, std::istream& in,
                                      const std::string& origin,
                                      const LabelImportOptions& options) {
  ImportFail fail = [&](std::int64_t line, const std::string& what) {
    return UserError(terminal_safe(origin) + ":" + std::to_string(line) + ": " + what);
  };
  CsvReader reader(in, CsvLimits{kMaxNoteBytes, kMaxLabelRowBytes});
  CsvRecord header, rec;
  auto read = [&](CsvRecord* r) {
    try {
      return reader.next(r);
    } catch (const CsvTooLong& e) {  // a 200 MB note is refused after 64 KB of it
      std::size_t i = e.column - 1;
      std::string name = r != &header && i < header.fields.size()
                             ? " (" + terminal_safe(lower(trim(header.fields[i], " \t"))) + ")"
                             : "";
      throw fail(e.line, "column " + std::to_string(e.column) + name + ": " + e.problem +
                             " (a label note holds at most " + std::to_string(kMaxNoteBytes >> 10) +
                             " KB); nothing was imported");
    } catch (const UserError& e) {  // the reader's "LINE: what is wrong"
      throw UserError(terminal_safe(origin) + ":" + e.what());
    }
  };
  if (!read(&header)) throw fail(1, "empty file (expected a header with repo and number)");
  check_cells(header, header, fail);
  Transaction tx(db);
  LabelRows rows(db, tax, header, origin, options, fail);
  while (read(&rec)) {
    check_cells(rec, header, fail);
    rows.add(rec);
  }
  tx.commit();
  return rows.result();
}

}  // namespace

LabelImportResult import_label_csv(Db& db, const Taxonomy& tax, const std::string& path,
                                   const LabelImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + ": cannot read the file");
  return import_label_stream(db, tax, in, path, options);
}

LabelImportResult import_label_csv_text(Db& db, const Taxonomy& tax, const std::string& text,
                                        const std::string& origin,
                                        const LabelImportOptions& options) {
  std::istringstream in(text);
  return import_label_stream(db, tax, in, origin, options);
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
