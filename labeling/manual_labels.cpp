#include "labeling/manual_labels.h"

#include "core/error.h"
#include "core/issue_store.h"
#include "core/text.h"
#include "labeling/label_source.h"

namespace convfail::labeling {

const std::vector<std::string>& manual_dimensions() {
  static const std::vector<std::string> dims = {"symptom", "cause", "subtype", "stage"};
  return dims;
}

namespace {

constexpr const char* kCurrentValue = "CASE WHEN kind = 'skip' THEN NULL ELSE value END";

ManualLabelRow read_row(Stmt& st) {
  ManualLabelRow r;
  r.id = st.int64(0);
  r.issue_id = st.int64(1);
  r.annotator = st.text(2);
  r.dimension = st.text(3);
  r.value = st.opt_text(4);
  r.kind = st.text(5);
  r.note = st.opt_text(6);
  r.source = st.opt_text(7);
  r.created_at = st.text(8);
  return r;
}

constexpr const char* kRowColumns =
    "SELECT id, issue_id, annotator, dimension, value, kind, note, source, created_at "
    "FROM manual_labels ";

}  // namespace

ManualLabels::ManualLabels(Db& db)
    : db_(db),
      insert_(db,
              "INSERT INTO manual_labels(issue_id, annotator, dimension, value, kind, note, "
              "source) VALUES (?,?,?,?,?,?,?)"),
      current_(db, std::string("SELECT ") + kCurrentValue +
                       " FROM manual_labels WHERE issue_id=? AND annotator=? AND dimension=? "
                       "ORDER BY id DESC LIMIT 1"),
      before_(db, std::string("SELECT ") + kCurrentValue +
                      " FROM manual_labels WHERE issue_id=? AND annotator=? AND dimension=? "
                      "AND id < ? ORDER BY id DESC LIMIT 1") {}

std::int64_t ManualLabels::append(std::int64_t issue_id, const std::string& annotator,
                                  const std::string& dimension,
                                  const std::optional<std::string>& value, const std::string& kind,
                                  const std::optional<std::string>& note,
                                  const std::string& source) {
  if (note && note->size() > kMaxNoteBytes)
    throw UserError("note: " + std::to_string(note->size()) + " bytes, over the limit of " +
                    std::to_string(kMaxNoteBytes >> 10) + " KB");
  insert_.bind(1, issue_id)
      .bind(2, annotator)
      .bind(3, dimension)
      .bind(4, value)
      .bind(5, kind)
      .bind(6, note)
      .bind(7, source);
  insert_.run();
  return db_.last_insert_id();
}

std::optional<std::string> ManualLabels::current(std::int64_t issue_id,
                                                 const std::string& annotator,
                                                 const std::string& dimension) {
  current_.bind(1, issue_id).bind(2, annotator).bind(3, dimension);
  std::optional<std::string> out;
  if (current_.step()) out = current_.opt_text(0);
  current_.reset();
  return out;
}

std::optional<ManualLabelRow> ManualLabels::latest(std::int64_t issue_id,
                                                   const std::string& annotator,
                                                   const std::string& dimension) {
  Stmt st(db_, std::string(kRowColumns) +
                   "WHERE issue_id=? AND annotator=? AND dimension=? ORDER BY id DESC LIMIT 1");
  st.bind(1, issue_id).bind(2, annotator).bind(3, dimension);
  if (!st.step()) return std::nullopt;
  return read_row(st);
}

std::optional<std::string> ManualLabels::value_before(std::int64_t issue_id,
                                                      const std::string& annotator,
                                                      const std::string& dimension,
                                                      std::int64_t row_id) {
  before_.bind(1, issue_id).bind(2, annotator).bind(3, dimension).bind(4, row_id);
  std::optional<std::string> out;
  if (before_.step()) out = before_.opt_text(0);
  before_.reset();
  return out;
}

std::optional<std::int64_t> ManualLabels::undo(std::int64_t issue_id, const std::string& annotator,
                                               std::int64_t row_id, const std::string& source) {
  std::optional<ManualLabelRow> undone = row(row_id);
  if (!undone || undone->issue_id != issue_id || undone->annotator != annotator)
    return std::nullopt;
  auto previous = value_before(issue_id, annotator, undone->dimension, row_id);
  return append(issue_id, annotator, undone->dimension, previous, "undo", std::nullopt, source);
}

std::vector<ManualLabelRow> ManualLabels::history(std::int64_t issue_id,
                                                  const std::optional<std::string>& annotator) {
  // typeof() reads no note; a note is read up to kMaxNoteBytes + 1 bytes (Db::read_prefix).
  Stmt st(db_,
          "SELECT id, issue_id, annotator, dimension, value, kind, typeof(note), source, "
          "created_at, CASE WHEN typeof(note) IN ('integer', 'real') THEN CAST(note AS TEXT) END "
          "FROM manual_labels WHERE issue_id = ?1 AND (?2 IS NULL OR annotator = ?2) ORDER BY id");
  st.bind(1, issue_id).bind(2, annotator);
  std::vector<ManualLabelRow> out;
  while (st.step()) {
    out.push_back(read_row(st));
    ManualLabelRow& r = out.back();
    r.note = st.opt_text(9);  // a number another tool stored
    if (st.text(6) != "text" && st.text(6) != "blob") continue;
    std::size_t size = 0;
    std::string note = db_.read_prefix("manual_labels", "note", r.id, kMaxNoteBytes + 1, &size);
    r.note_truncated = size > kMaxNoteBytes;
    r.note = r.note_truncated ? truncate_utf8(note, kMaxNoteBytes) : note;
  }
  return out;
}

Json history_row_json(const ManualLabelRow& r) {
  auto opt = [](const std::optional<std::string>& v) { return v ? Json(*v) : Json(); };
  Json j = {{"id", r.id},          {"annotator", r.annotator},   {"dimension", r.dimension},
            {"kind", r.kind},      {"created_at", r.created_at}, {"value", opt(r.value)},
            {"note", opt(r.note)}, {"source", opt(r.source)}};
  if (r.note_truncated) j["note_truncated"] = true;
  return j;
}

std::optional<ManualLabelRow> ManualLabels::row(std::int64_t id) {
  Stmt st(db_, std::string(kRowColumns) + "WHERE id = ?");
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  return read_row(st);
}

std::int64_t ManualLabels::last_id() {
  return db_.scalar("SELECT coalesce(max(id), 0) FROM manual_labels");
}

std::vector<std::int64_t> ManualLabels::ids_after(std::int64_t after, std::int64_t issue_id,
                                                  const std::string& annotator) {
  Stmt st(db_,
          "SELECT id FROM manual_labels WHERE id > ? AND issue_id = ? AND annotator = ? "
          "ORDER BY id");
  st.bind(1, after).bind(2, issue_id).bind(3, annotator);
  std::vector<std::int64_t> out;
  while (st.step()) out.push_back(st.int64(0));
  return out;
}

std::vector<ManualLabels::Current> ManualLabels::current_labels(std::int64_t issue_id) {
  Stmt st(db_,
          "SELECT annotator, dimension, value, kind FROM current_manual_labels WHERE issue_id = ? "
          "ORDER BY annotator, dimension");
  st.bind(1, issue_id);
  std::vector<Current> out;
  while (st.step()) out.push_back({st.text(0), st.text(1), st.opt_text(2), st.text(3)});
  return out;
}

std::vector<ManualLabelRow> ManualLabels::rows_from_source(const std::string& source) {
  Stmt st(db_, std::string(kRowColumns) + "WHERE source = ? ORDER BY id");
  st.bind(1, source);
  std::vector<ManualLabelRow> out;
  while (st.step()) out.push_back(read_row(st));
  return out;
}

std::vector<std::string> manual_annotators(Db& db) {
  Stmt st(db, "SELECT DISTINCT annotator FROM manual_labels ORDER BY annotator");
  std::vector<std::string> out;
  while (st.step()) out.push_back(st.text(0));
  return out;
}

std::string checked_label(const Taxonomy& tax, const std::string& dimension,
                          const std::string& value) {
  if (!tax.has_dimension(dimension))
    throw UserError("unknown dimension \"" + dimension + "\"; valid: symptom, cause, stage");
  auto id = tax.normalize_label(dimension, value);
  if (!id)
    throw UserError("unknown " + dimension + " \"" + value +
                    "\"; valid: " + join(tax.label_ids(dimension), ", "));
  return *id;
}

std::string checked_subtype(const Taxonomy& tax, const std::string& cause,
                            const std::string& value) {
  auto valid = tax.subtype_ids(cause);
  if (valid.empty())
    throw UserError("cause \"" + cause + "\" has no subtypes (subtype \"" + value + "\" refused)");
  auto id = tax.normalize_subtype(cause, value);
  if (!id)
    throw UserError("subtype \"" + value + "\" does not belong to cause \"" + cause +
                    "\"; valid: " + join(valid, ", "));
  return *id;
}

LabelOutcome append_choice(ManualLabels& store, const Taxonomy& tax, std::int64_t issue_id,
                           const std::string& annotator, const LabelChoice& choice,
                           const std::string& source, const std::string& kind,
                           const std::map<std::string, std::string>& notes) {
  check_annotator_name(annotator);
  // Check every value before writing any.
  std::vector<std::pair<std::string, std::string>> values;
  if (choice.symptom)
    values.emplace_back("symptom", checked_label(tax, "symptom", *choice.symptom));
  std::optional<std::string> cause;
  if (choice.cause) {
    cause = checked_label(tax, "cause", *choice.cause);
    values.emplace_back("cause", *cause);
  }
  if (choice.subtype) {
    std::optional<std::string> of = cause ? cause : store.current(issue_id, annotator, "cause");
    if (!of) throw UserError("subtype \"" + *choice.subtype + "\" needs a cause (give --cause)");
    values.emplace_back("subtype", checked_subtype(tax, *of, *choice.subtype));
  }
  if (choice.stage) values.emplace_back("stage", checked_label(tax, "stage", *choice.stage));
  LabelOutcome out;
  for (const auto& [dim, value] : values) {
    auto own = notes.find(dim);
    std::optional<std::string> note = own != notes.end() ? own->second : choice.note;
    // Same value (and no new note): nothing to record.
    auto last = store.latest(issue_id, annotator, dim);
    // (an undo restoring the value counts as a label of it)
    bool same_kind = last && (last->kind == kind || (last->kind == "undo" && kind == "label"));
    if (same_kind && last->value == value && (!note || last->note == note)) {
      ++out.unchanged;
      continue;
    }
    store.append(issue_id, annotator, dim, value, kind, note, source);
    ++out.written;
  }
  // A new cause without a subtype: a held subtype that does not belong to it is cleared, so
  // the current labels never pair a cause with a foreign subtype.
  if (cause && !choice.subtype) {
    auto held = store.current(issue_id, annotator, "subtype");
    if (held && !tax.has_subtype(*cause, *held)) {
      store.append(issue_id, annotator, "subtype", std::nullopt, kind,
                   "cleared: not a subtype of " + *cause, source);
      ++out.written;
    }
  }
  return out;
}

LabelOutcome record_labels(Db& db, const Taxonomy& tax, std::int64_t issue_id,
                           const std::string& annotator, const LabelChoice& choice,
                           const std::string& source) {
  if (!choice.symptom && !choice.cause && !choice.subtype && !choice.stage)
    throw UsageError("nothing to record: give --symptom, --cause, --subtype or --stage");
  Transaction tx(db);
  ManualLabels store(db);
  LabelOutcome out = append_choice(store, tax, issue_id, annotator, choice, source);
  tx.commit();
  return out;
}

}  // namespace convfail::labeling
