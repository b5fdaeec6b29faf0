#include "web/api.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <limits>
#include <set>

#include "core/error.h"
#include "core/issue_queries.h"
#include "core/issue_ref.h"
#include "core/json_util.h"
#include "core/text.h"
#include "labeling/agreement.h"
#include "labeling/agreement_report.h"
#include "labeling/annotation_queue.h"
#include "labeling/label_sets.h"
#include "labeling/label_source.h"
#include "labeling/manual_labels.h"
#include "reports/render.h"
#include "reports/report_data.h"

namespace convfail::web {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxParam = 1000;

std::optional<std::string> param(const Params& p, const std::string& key) {
  auto it = p.find(key);
  if (it == p.end() || it->second.empty()) return std::nullopt;
  if (it->second.size() > kMaxParam) throw HttpError(400, key + ": longer than 1000 characters");
  return it->second;
}

std::vector<std::string> params(const Params& p, const std::string& key) {
  std::vector<std::string> out;
  auto [from, to] = p.equal_range(key);
  for (auto it = from; it != to; ++it) {
    if (it->second.size() > kMaxParam) throw HttpError(400, key + ": longer than 1000 characters");
    std::size_t start = 0;
    while (start <= it->second.size()) {  // comma lists: repo=a/b,c/d
      std::size_t comma = it->second.find(',', start);
      std::string item = trim(
          it->second.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (!item.empty()) out.push_back(item);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

long int_param(const Params& p, const std::string& key, long fallback, long lo, long hi) {
  auto v = param(p, key);
  if (!v) return fallback;
  char* end = nullptr;
  errno = 0;
  long n = std::strtol(v->c_str(), &end, 10);
  if (errno || end == v->c_str() || *end || n < lo || n > hi)
    throw HttpError(400, key + ": expected an integer in " + std::to_string(lo) + ".." +
                             std::to_string(hi) + ", got " + quoted_excerpt(*v));
  return n;
}

std::optional<double> real_param(const Params& p, const std::string& key, double lo, double hi) {
  auto v = param(p, key);
  if (!v) return std::nullopt;
  char* end = nullptr;
  double d = std::strtod(v->c_str(), &end);
  if (end == v->c_str() || *end || !std::isfinite(d) || d < lo || d > hi)
    throw HttpError(400, key + ": expected a number in [" + std::to_string(lo) + ", " +
                             std::to_string(hi) + "], got " + quoted_excerpt(*v));
  return d;
}

// A label source parameter (source, compare, a, b), checked by labeling::LabelSource as on the
// command line: a bad one ("classifier:x", "hybrid:") is the client's error, 400.
std::optional<std::string> source_param(const Params& p, const std::string& key) {
  auto v = param(p, key);
  if (!v) return v;
  try {
    return labeling::LabelSource::parse(*v).text();
  } catch (const UsageError& e) {
    throw HttpError(400, key + ": " + e.what());
  }
}

json opt(const std::optional<std::string>& s) {
  return s ? json(*s) : json();
}

json row_json(const labeling::ManualLabelRow& r) {  // as `labels history --json`
  return {{"id", r.id},          {"annotator", r.annotator},   {"dimension", r.dimension},
          {"kind", r.kind},      {"created_at", r.created_at}, {"value", opt(r.value)},
          {"note", opt(r.note)}, {"source", opt(r.source)}};
}

// The UTF-16 index of byte offset `byte` in UTF-8 `text` (what JavaScript strings count).
std::size_t utf16_index(const std::string& text, std::size_t byte) {
  std::size_t units = 0;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) units += c >= 0xF0 ? 2 : 1;  // lead byte (4-byte: surrogate pair)
  }
  return units;
}

struct Evidence {
  std::string dimension, label, rule, field, matched;
  std::int64_t field_index = 0, start = 0, end = 0;
  double weight = 0;
};

// Byte ranges of the evidence in one displayed text (as the terminal view marks them: the exact
// span when it is on this field, else the first occurrence of the matched text), as UTF-16
// [start, end, rule] triples, sorted and merged.
json highlight_ranges(const std::string& text, const std::string& field, std::int64_t index,
                      const std::vector<Evidence>& evidence) {
  std::vector<std::tuple<std::size_t, std::size_t, std::string>> ranges;
  for (const Evidence& e : evidence) {
    bool same_field =
        e.field == field || (field == "comment" && e.field.find("comment") != std::string::npos);
    if (same_field && e.field_index == index && e.start >= 0 && e.start < e.end &&
        e.end <= static_cast<std::int64_t>(text.size()) &&
        text.compare(e.start, e.end - e.start, e.matched) == 0) {
      ranges.emplace_back(e.start, e.end, e.dimension + ": " + e.rule);
    } else if (e.field != "title" && e.matched.size() >= 3) {
      auto pos = text.find(e.matched);
      if (pos != std::string::npos)
        ranges.emplace_back(pos, pos + e.matched.size(), e.dimension + ": " + e.rule);
    }
  }
  std::sort(ranges.begin(), ranges.end());
  json out = json::array();
  std::size_t at = 0;
  for (std::size_t i = 0; i < ranges.size();) {
    auto [start, end, rule] = ranges[i];
    for (++i; i < ranges.size() && std::get<0>(ranges[i]) <= end; ++i) {
      end = std::max(end, std::get<1>(ranges[i]));
      const std::string& more = std::get<2>(ranges[i]);
      if (("," + rule + ",").find("," + more + ",") == std::string::npos &&
          (", " + rule + ",").find(", " + more + ",") == std::string::npos)
        rule += ", " + more;
    }
    start = std::max(start, at);
    // One-character spans (priors on the first letter) mark nothing useful.
    if (start + 1 < end) out.push_back({utf16_index(text, start), utf16_index(text, end), rule});
    at = end;
  }
  return out;
}

std::int64_t latest_run(Db& db) {
  return db.scalar("SELECT coalesce(max(id), 0) FROM classifier_runs WHERE in_progress = 0");
}

IssueRef issue_ref_of(const json& body) {
  auto repo = opt_string(body, "repo");
  auto number = opt_int(body, "number");
  if (!repo || !number) throw HttpError(400, "body: \"repo\" (string) and \"number\" needed");
  try {
    return parse_issue_ref(*repo + "#" + std::to_string(*number));
  } catch (const UsageError& e) {
    throw HttpError(400, e.what());
  }
}

std::optional<std::string> body_string(const json& body, const char* key) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) throw HttpError(400, std::string("body: \"") + key + "\" must be a string");
  std::string s = it->get<std::string>();
  if (s.size() > 2000) throw HttpError(400, std::string("body: \"") + key + "\" too long");
  if (utf8_invalid_at(s) != std::string::npos)
    throw HttpError(400, std::string("body: \"") + key + "\" is not UTF-8");
  if (s.empty()) return std::nullopt;
  return s;
}

}  // namespace

std::string checked_annotator(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
           c == '@';
  });
  if (!ok)
    throw HttpError(
        400, "annotator: 1-64 letters, digits, '.', '_', '-' or '@', got " + quoted_excerpt(name));
  try {
    labeling::check_annotator_name(name);
  } catch (const UsageError& e) {
    throw HttpError(400, e.what());
  }
  return name;
}

json session_json(Db& db, const Taxonomy& tax, const std::string& annotator, bool readonly) {
  json dims = json::array();
  for (const TaxonomyDimension& d : tax.dimensions()) {
    json labels = json::array();
    for (const TaxonomyLabel& l : d.labels) {
      json subs = json::array();
      for (const TaxonomyLabel& s : l.subtypes)
        subs.push_back({{"id", s.id},
                        {"title", s.title},
                        {"definition", s.definition},
                        {"example", s.example}});
      labels.push_back({{"id", l.id},
                        {"title", l.title},
                        {"definition", l.definition},
                        {"example", l.example},
                        {"subtypes", subs}});
    }
    dims.push_back({{"id", d.id}, {"title", d.title}, {"labels", labels}});
  }
  json repos = json::array();
  Stmt r(db, "SELECT full_name FROM repositories ORDER BY full_name");
  while (r.step())
    repos.push_back({{"repo", r.text(0)}, {"converter", tax.converter_for_repo(r.text(0))}});
  return {{"annotator", annotator.empty() ? json() : json(annotator)},
          {"readonly", readonly},
          {"sources", labeling::label_sources(db)},
          {"annotators", labeling::manual_annotators(db)},
          {"repositories", repos},
          {"dimensions", dims},
          {"manual_dimensions", labeling::manual_dimensions()}};
}

json issues_json(Db& db, const Taxonomy& tax, const Params& p) {
  long page = int_param(p, "page", 1, 1, 1000000);
  long per_page = int_param(p, "per_page", 50, 1, 200);
  std::vector<std::string> repos = params(p, "repo");
  auto state = param(p, "state");
  if (state && *state != "open" && *state != "closed")
    throw HttpError(400, "state: open or closed");
  auto converter = param(p, "converter");
  std::map<std::string, std::string> want;  // dimension -> label
  for (const char* dim : {"symptom", "cause", "stage"}) {
    if (auto v = param(p, dim)) {
      auto id = tax.normalize_label(dim, *v);
      if (!id) throw HttpError(400, std::string(dim) + ": unknown label " + quoted_excerpt(*v));
      want[dim] = *id;
    }
  }
  auto min_conf = real_param(p, "min_confidence", 0, 1);
  auto max_conf = real_param(p, "max_confidence", 0, 1);
  auto compare = source_param(p, "compare");
  auto agreement = param(p, "agreement");
  if (agreement && *agreement != "agree" && *agreement != "disagree")
    throw HttpError(400, "agreement: agree or disagree");
  if (agreement && !compare) throw HttpError(400, "agreement: needs compare=SOURCE");
  auto verdict = param(p, "verdict");
  auto source = source_param(p, "source");
  bool need_labels = source || !want.empty() || min_conf || max_conf || agreement;
  std::string src = source.value_or("classifier");

  // Candidates, in order: search hits by rank, else newest first.
  std::vector<json> rows;
  std::vector<std::int64_t> ids;
  std::vector<std::string> row_repos;
  if (auto q = param(p, "q")) {
    SearchOptions o;
    o.limit = 0;
    o.fts = param(p, "fts").value_or("0") == "1";
    try {
      for (const SearchHit& h : search_issues(db, *q, o)) {
        rows.push_back(to_json(h));
        ids.push_back(h.issue.id);
        row_repos.push_back(h.issue.repo);
      }
    } catch (const UsageError& e) {
      throw HttpError(400, e.what());
    }
  } else {
    IssueFilter f;
    if (state) f.state = state;
    bool plain = !need_labels && !verdict && !converter;
    if (plain) {
      // Only repository and state filters: the database pages and counts (no full listing).
      f.repos = repos;
      f.limit = per_page;
      f.offset = (page - 1) * per_page;
      std::string sql =
          "SELECT count(*) FROM issues i JOIN repositories r ON r.id = i.repo_id "
          "WHERE i.is_pull_request = 0";
      if (!repos.empty()) {
        sql += " AND r.full_name IN (?";
        for (std::size_t k = 1; k < repos.size(); ++k) sql += ",?";
        sql += ")";
      }
      if (state) sql += " AND i.state = ? COLLATE NOCASE";
      Stmt count(db, sql);
      int k = 1;
      for (const std::string& r : repos) count.bind(k++, r);
      if (state) count.bind(k++, *state);
      count.step();
      std::int64_t total = count.int64(0);
      json out = json::array();
      for (const IssueSummary& s : list_issues(db, f)) {
        json row = to_json(s);
        row["converter"] = tax.converter_for_repo(s.repo);
        out.push_back(std::move(row));
      }
      return {{"issues", out}, {"total", total}, {"page", page}, {"per_page", per_page}};
    }
    for (const IssueSummary& s : list_issues(db, f)) {
      rows.push_back(to_json(s));
      ids.push_back(s.id);
      row_repos.push_back(s.repo);
    }
  }

  std::map<std::int64_t, labeling::IssueLabels> labels, other;
  if (need_labels) {
    for (auto& l : labeling::load_label_set(db, src)) labels[l.issue_id] = std::move(l);
    if (compare)
      for (auto& l : labeling::load_label_set(db, *compare)) other[l.issue_id] = std::move(l);
  }
  std::set<std::int64_t> with_verdict;
  if (verdict) {
    Stmt v(db,
           "SELECT DISTINCT issue_id FROM repro_runs WHERE verdict = ? AND issue_id IS NOT NULL");
    v.bind(1, *verdict);
    while (v.step()) with_verdict.insert(v.int64(0));
  }

  json out = json::array();
  long total = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string& repo = row_repos[i];
    if (!repos.empty() && std::none_of(repos.begin(), repos.end(),
                                       [&](const std::string& r) { return iequals(r, repo); }))
      continue;
    if (state && rows[i]["state"] != *state) continue;
    std::string conv = tax.converter_for_repo(repo);
    if (converter && !iequals(*converter, conv)) continue;
    if (verdict && !with_verdict.count(ids[i])) continue;
    const labeling::IssueLabels* l = nullptr;
    if (need_labels) {
      auto it = labels.find(ids[i]);
      if (it == labels.end()) continue;
      l = &it->second;
      bool ok = true;
      for (const auto& [dim, value] : want) {
        auto v = l->values.find(dim);
        if (v == l->values.end() || v->second != value) ok = false;
      }
      if (min_conf || max_conf) {
        if (l->confidence.empty()) ok = false;
        double lowest = 1;
        for (const auto& [dim, c] : l->confidence) lowest = std::min(lowest, c);
        if ((min_conf && lowest < *min_conf) || (max_conf && lowest > *max_conf)) ok = false;
      }
      if (agreement) {
        auto o = other.find(ids[i]);
        int shared = 0, differ = 0;
        if (o != other.end())
          for (const auto& [dim, value] : l->values) {
            auto v = o->second.values.find(dim);
            if (v == o->second.values.end()) continue;
            ++shared;
            if (v->second != value) ++differ;
          }
        bool agrees = shared > 0 && differ == 0;
        if (shared == 0 || (*agreement == "agree") != agrees) ok = false;
      }
      if (!ok) continue;
    }
    ++total;
    if (total <= (page - 1) * per_page || total > page * per_page) continue;
    json row = std::move(rows[i]);
    row["converter"] = conv;
    if (l) {
      row["labels_source"] = src;
      row["source_labels"] = l->values;
      row["confidence"] = l->confidence;
    }
    out.push_back(std::move(row));
  }
  return {{"issues", out}, {"total", total}, {"page", page}, {"per_page", per_page}};
}

json issue_json(Db& db, const Taxonomy& tax, const std::string& repo, const std::string& number,
                const std::string& viewer, bool blind) {
  IssueRef ref;
  try {
    ref = parse_issue_ref(repo + "#" + number);
  } catch (const UsageError& e) {
    throw HttpError(400, e.what());
  }
  std::optional<IssueDetail> d = get_issue(db, ref);
  if (!d) throw HttpError(404, "issue " + to_string(ref) + " is not in the store");
  std::int64_t id = d->summary.id;
  json j = to_json(*d);
  j["converter"] = tax.converter_for_repo(d->summary.repo);

  std::int64_t run = latest_run(db);
  std::vector<Evidence> evidence;
  json classifier = nullptr, facts = json::array();
  if (run) {
    json dims = json::object();
    Stmt l(db,
           "SELECT l.dimension, l.label, l.subtype, l.confidence, c.probability "
           "FROM classifier_labels l LEFT JOIN classifier_calibrated c ON c.run_id = l.run_id "
           "AND c.issue_id = l.issue_id AND c.dimension = l.dimension "
           "WHERE l.run_id = ? AND l.issue_id = ? ORDER BY l.dimension");
    l.bind(1, run).bind(2, id);
    while (l.step())
      dims[l.text(0)] = {{"label", opt(l.opt_text(1))},
                         {"subtype", opt(l.opt_text(2))},
                         {"confidence", l.real(3)},
                         {"probability", l.is_null(4) ? json() : json(l.real(4))}};
    Stmt e(db,
           "SELECT dimension, label, rule_id, field, field_index, span_start, span_end, "
           "matched_text, weight FROM classifier_evidence WHERE run_id = ? AND issue_id = ? "
           "ORDER BY weight DESC, id");
    e.bind(1, run).bind(2, id);
    json ev = json::array();
    while (e.step()) {
      evidence.push_back({e.text(0), e.text(1), e.text(2), e.text(3), e.text(7), e.int64(4),
                          e.int64(5), e.int64(6), e.real(8)});
      const Evidence& x = evidence.back();
      ev.push_back({{"dimension", x.dimension},
                    {"label", x.label},
                    {"rule", x.rule},
                    {"field", x.field},
                    {"field_index", x.field_index},
                    {"span_start", x.start},
                    {"span_end", x.end},
                    {"matched_text", x.matched},
                    {"weight", x.weight}});
    }
    // Execution evidence: stored repro verdicts that voted for a label in this run.
    Stmt x(db,
           "SELECT dimension, label, kind, weight, repro_run_id, run_kind, verdict, step, "
           "signature, summary FROM classifier_execution_evidence WHERE run_id = ? AND "
           "issue_id = ? ORDER BY dimension, kind");
    x.bind(1, run).bind(2, id);
    json execution = json::array();
    while (x.step())
      execution.push_back({{"dimension", x.text(0)},
                           {"label", x.text(1)},
                           {"kind", x.text(2)},
                           {"weight", x.real(3)},
                           {"repro_run_id", x.int64(4)},
                           {"run_kind", x.text(5)},
                           {"verdict", x.text(6)},
                           {"step", opt(x.opt_text(7))},
                           {"signature", opt(x.opt_text(8))},
                           {"summary", x.text(9)}});
    classifier = {
        {"run_id", run}, {"dimensions", dims}, {"evidence", ev}, {"execution", execution}};
    Stmt f(db,
           "SELECT kind, value FROM classifier_extractions WHERE run_id = ? AND issue_id = ? "
           "ORDER BY kind, value");
    f.bind(1, run).bind(2, id);
    while (f.step()) facts.push_back({{"kind", f.text(0)}, {"value", f.text(1)}});
  }
  j["classifier"] = classifier;
  j["facts"] = facts;
  json comments = json::array();
  for (std::size_t i = 0; i < d->comments.size(); ++i)
    comments.push_back(highlight_ranges(d->comments[i].body.value_or(""), "comment",
                                        static_cast<std::int64_t>(i), evidence));
  j["highlights"] = {{"title", highlight_ranges(d->summary.title, "title", 0, evidence)},
                     {"body", highlight_ranges(d->body.value_or(""), "body", 0, evidence)},
                     {"comments", comments}};

  labeling::ManualLabels store(db);
  json history = json::array();
  for (const auto& r : store.history(id))
    if (!blind || r.annotator == viewer) history.push_back(row_json(r));
  j["history"] = history;
  j["blind"] = blind;
  json current = json::object();
  Stmt c(db,
         "SELECT annotator, dimension, value, kind FROM current_manual_labels WHERE issue_id = ? "
         "ORDER BY annotator, dimension");
  c.bind(1, id);
  while (c.step())
    if (!blind || c.text(0) == viewer)
      current[c.text(0)][c.text(1)] = {{"value", opt(c.opt_text(2))}, {"kind", c.text(3)}};
  j["current"] = current;
  json repro = json::array();
  Stmt r(db,
         "SELECT id, verdict, step, signature, reason, output_name, max_abs_error, started_at, "
         "message, traceback FROM repro_runs WHERE issue_id = ? ORDER BY id");
  r.bind(1, id);
  while (r.step())
    repro.push_back({{"id", r.int64(0)},
                     {"verdict", r.text(1)},
                     {"step", opt(r.opt_text(2))},
                     {"signature", opt(r.opt_text(3))},
                     {"reason", opt(r.opt_text(4))},
                     {"output_name", opt(r.opt_text(5))},
                     {"max_abs_error", r.is_null(6) ? json() : json(r.real(6))},
                     {"started_at", r.text(7)},
                     {"message", opt(r.opt_text(8))},
                     {"traceback", opt(r.opt_text(9))}});
  j["repro"] = repro;
  return j;
}

json label_history_json(Db& db, const Params& p) {
  auto repo = param(p, "repo");
  auto number = param(p, "number");
  if (!repo || !number) throw HttpError(400, "repo and number needed");
  IssueRef ref;
  try {
    ref = parse_issue_ref(*repo + "#" + *number);
  } catch (const UsageError& e) {
    throw HttpError(400, e.what());
  }
  std::int64_t id = 0;
  try {
    id = require_issue(db, ref);
  } catch (const UserError& e) {
    throw HttpError(404, e.what());
  }
  labeling::ManualLabels store(db);
  json rows = json::array();
  for (const auto& r : store.history(id, param(p, "annotator"))) rows.push_back(row_json(r));
  return rows;
}

json post_label(Db& db, const Taxonomy& tax, const std::string& annotator, const json& body) {
  Transaction tx(db);  // BEGIN IMMEDIATE: concurrent writers wait (busy timeout), none is lost
  json result = append_label(db, tax, annotator, body);
  tx.commit();
  return result;
}

json append_label(Db& db, const Taxonomy& tax, const std::string& annotator, const json& body) {
  if (!body.is_object()) throw HttpError(400, "body: expected a JSON object");
  IssueRef ref = issue_ref_of(body);
  std::string kind = body_string(body, "kind").value_or("label");
  if (kind != "label" && kind != "adjudication" && kind != "skip" && kind != "undo")
    throw HttpError(400, "kind: label, adjudication, skip or undo");
  auto note = body_string(body, "note");
  std::string source = kind == "adjudication" ? "web:adjudicate" : "web";

  std::int64_t id = 0;
  try {
    id = require_issue(db, ref);
  } catch (const UserError& e) {
    throw HttpError(404, e.what());
  }
  labeling::ManualLabels store(db);
  json result = {{"repo", ref.repo}, {"number", ref.number}, {"annotator", annotator}};
  auto before = db.scalar("SELECT coalesce(max(id), 0) FROM manual_labels");
  if (kind == "undo") {
    auto row_id = opt_int(body, "row_id");
    if (!row_id) throw HttpError(400, "undo: \"row_id\" (integer) needed");
    Stmt s(db, "SELECT issue_id, annotator, dimension FROM manual_labels WHERE id = ?");
    s.bind(1, *row_id);
    if (!s.step() || s.int64(0) != id || s.text(1) != annotator)
      throw HttpError(400, "undo: row " + std::to_string(*row_id) + " is not a row of " +
                               annotator + " on " + to_string(ref));
    std::string dim = s.text(2);
    auto previous = store.value_before(id, annotator, dim, *row_id);
    store.append(id, annotator, dim, previous, "undo", std::nullopt, source);
  } else if (kind == "skip") {
    auto dim = body_string(body, "dimension");
    const auto& dims = labeling::manual_dimensions();
    if (!dim || std::find(dims.begin(), dims.end(), *dim) == dims.end())
      throw HttpError(400, "skip: \"dimension\" must be one of " + join(dims, ", "));
    store.append(id, annotator, *dim, std::nullopt, "skip", note, source);
  } else {
    labeling::LabelChoice choice;
    choice.note = note;
    if (auto dim = body_string(body, "dimension")) {
      auto value = body_string(body, "value");
      if (!value) throw HttpError(400, "\"value\" needed with \"dimension\"");
      if (*dim == "symptom")
        choice.symptom = value;
      else if (*dim == "cause")
        choice.cause = value;
      else if (*dim == "subtype")
        choice.subtype = value;
      else if (*dim == "stage")
        choice.stage = value;
      else
        throw HttpError(400, "dimension: symptom, cause, subtype or stage");
    } else {
      choice.symptom = body_string(body, "symptom");
      choice.cause = body_string(body, "cause");
      choice.subtype = body_string(body, "subtype");
      choice.stage = body_string(body, "stage");
    }
    if (!choice.symptom && !choice.cause && !choice.subtype && !choice.stage)
      throw HttpError(400, "no label given (dimension + value, or symptom/cause/subtype/stage)");
    labeling::LabelOutcome o;
    try {
      o = labeling::append_choice(store, tax, id, annotator, choice, source, kind);
    } catch (const UserError& e) {
      throw HttpError(400, e.what());  // unknown label id: nothing written
    }
    result["unchanged"] = o.unchanged;
  }
  json rows = json::array();
  Stmt w(
      db,
      "SELECT id FROM manual_labels WHERE id > ? AND issue_id = ? AND annotator = ? ORDER BY id");
  w.bind(1, before).bind(2, id).bind(3, annotator);
  while (w.step()) rows.push_back(w.int64(0));
  result["written"] = rows.size();
  result["row_ids"] = rows;
  return result;
}

json queue_json(Db& db, const std::string& annotator, const Params& p) {
  std::string mode = param(p, "mode").value_or("annotate");
  std::vector<labeling::QueueItem> items;
  if (mode == "annotate") {
    labeling::QueueOptions o;
    o.queue = param(p, "queue").value_or("unlabeled");
    if (o.queue != "unlabeled" && o.queue != "low-confidence" && o.queue != "disagreement" &&
        o.queue != "sample")
      throw HttpError(400, "queue: unlabeled, low-confidence, disagreement or sample");
    o.size = static_cast<int>(int_param(p, "size", 50, 1, 10000));
    o.seed = static_cast<std::uint64_t>(int_param(p, "seed", 1, 0, 1L << 40));
    o.repos = params(p, "repo");
    if (auto lc = real_param(p, "low_confidence", 0, 1)) o.low_confidence = *lc;
    items = labeling::build_annotate_queue(db, annotator, o);
  } else if (mode == "adjudicate") {
    std::vector<std::string> annotators = params(p, "annotators");
    if (annotators.size() < 2) throw HttpError(400, "annotators: at least two, e.g. A,B");
    items = labeling::build_adjudication_queue(db, annotators, annotator);
  } else {
    throw HttpError(400, "mode: annotate or adjudicate");
  }
  json out = json::array();
  Stmt s(db,
         "SELECT r.full_name, i.number FROM issues i JOIN repositories r ON r.id = i.repo_id "
         "WHERE i.id = ?");
  for (const auto& item : items) {
    s.bind(1, item.issue_id);
    if (s.step())
      out.push_back({{"repo", s.text(0)}, {"number", s.int64(1)}, {"dimensions", item.dimensions}});
    s.reset();
  }
  return {{"mode", mode}, {"annotator", annotator}, {"items", out}};
}

json agreement_json(Db& db, const Params& p) {
  auto a = source_param(p, "a"), b = source_param(p, "b");
  if (!a || !b) throw HttpError(400, "a and b: the two label sources to compare");
  auto dimension = param(p, "dimension");
  const auto& dims = labeling::manual_dimensions();
  if (dimension && std::find(dims.begin(), dims.end(), *dimension) == dims.end())
    throw HttpError(400, "dimension: symptom, cause, subtype or stage");
  auto annotators = labeling::manual_annotators(db);
  auto is_annotator = [&](const std::string& s) {
    return std::find(annotators.begin(), annotators.end(), s) != annotators.end() ||
           labeling::LabelSource::parse(s).hybrid();
  };
  if (is_annotator(*a) && is_annotator(*b)) {  // the same figures as `convfail agreement`
    return labeling::agreement_json(labeling::compute_agreement(db, {*a, *b}, dimension));
  }
  // Any two label sources (e.g. classifier vs an annotator): Cohen's kappa per dimension on the
  // issues both label.
  std::map<std::int64_t, labeling::IssueLabels> left;
  for (auto& l : labeling::load_label_set(db, *a)) left[l.issue_id] = std::move(l);
  auto right = labeling::load_label_set(db, *b);
  json out = json::object();
  for (const std::string& dim : dims) {
    if (dimension && dim != *dimension) continue;
    labeling::LabelPairs pairs;
    for (const auto& r : right) {
      auto l = left.find(r.issue_id);
      if (l == left.end()) continue;
      const auto& lv = l->second.values;
      auto x = lv.find(dim);
      auto y = r.values.find(dim);
      if (x != lv.end() && y != r.values.end()) pairs.emplace_back(x->second, y->second);
    }
    if (pairs.empty()) continue;
    labeling::KappaResult k = labeling::cohen_kappa(pairs);
    labeling::ConfusionMatrix m = labeling::confusion(pairs);
    out[dim] = {{"n", k.n},
                {"agreement", k.observed},
                {"kappa", k.kappa},
                {"ci95", {k.ci_low, k.ci_high}},
                {"confusion", {{"labels", m.labels}, {"counts", m.counts}}}};
  }
  if (out.empty()) throw HttpError(400, *a + " and " + *b + " share no labeled issue");
  return {{"annotators", {*a, *b}}, {"dimensions", out}};
}

ReportText report_text(Db& db, const Taxonomy& tax, const Params& p) {
  reports::ReportOptions o;
  o.source = source_param(p, "source").value_or("classifier");
  o.compare = source_param(p, "compare");
  o.period = param(p, "by").value_or("year");
  o.repos = params(p, "repo");
  o.since = param(p, "since");
  o.until = param(p, "until");
  o.min_confidence = real_param(p, "min_confidence", 0, 1);
  std::string format = param(p, "format").value_or("json");
  reports::ReportFormat f;
  try {
    f = reports::parse_report_format(format);
  } catch (const UsageError& e) {
    throw HttpError(400, e.what());
  }
  reports::ReportData data = reports::build_report(db, tax, o);
  return typed_report(reports::render_report(data, tax, f), format);
}

ReportText typed_report(std::string text, const std::string& format) {
  static const std::map<std::string, std::pair<std::string, std::string>> kTypes = {
      {"json", {"application/json", "json"}},
      {"md", {"text/markdown; charset=utf-8", "md"}},
      {"csv", {"text/csv; charset=utf-8", "csv"}},
      {"latex", {"application/x-latex; charset=utf-8", "tex"}},
      {"html", {"text/html; charset=utf-8", "html"}}};
  const auto& t = kTypes.at(format);
  return {std::move(text), t.first, t.second};
}

}  // namespace convfail::web
