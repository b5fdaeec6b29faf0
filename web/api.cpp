#include "web/api.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/issue_queries.h"
#include "core/issue_ref.h"
#include "core/json_util.h"
#include "core/text.h"
#include "labeling/annotation_queue.h"
#include "labeling/label_sets.h"
#include "labeling/label_source.h"
#include "labeling/manual_labels.h"
#include "labeling/question_order.h"
#include "labelsets/agreement_report.h"
#include "labelsets/source_labels.h"
#include "reports/render.h"
#include "reports/report_data.h"
#include "repro/bisect_history.h"
#include "repro/verdict_store.h"
#include "views/dossier.h"
#include "views/issue_selection.h"
#include "views/queues.h"

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

// An issue the client names (path segments or parameters): 400 when the name is malformed.
IssueRef client_issue_ref(const std::string& repo, const std::string& number) {
  try {
    return parse_issue_ref(repo + "#" + number);
  } catch (const UsageError& e) {
    throw HttpError(400, e.what());
  }
}

// The stored issue's id: 404 when it is not stored.
std::int64_t stored_issue_id(Db& db, const IssueRef& ref) {
  try {
    return require_issue(db, ref);
  } catch (const UserError& e) {
    throw HttpError(404, e.what());
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

// A label as the page's pickers show it: id, title and its codebook entry.
json codebook_json(const TaxonomyLabel& l) {
  return {{"id", l.id}, {"title", l.title}, {"definition", l.definition}, {"example", l.example}};
}

}  // namespace

std::string checked_annotator(const std::string& name) {
  if (utf8_invalid_at(name) != std::string::npos)
    throw HttpError(400, "annotator: not UTF-8: " + quoted_excerpt(name));
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
      for (const TaxonomyLabel& s : l.subtypes) subs.push_back(codebook_json(s));
      json label = codebook_json(l);
      label["subtypes"] = subs;
      labels.push_back(label);
    }
    dims.push_back({{"id", d.id}, {"title", d.title}, {"labels", labels}});
  }
  json repos = json::array();
  for (const std::string& name : stored_repositories(db))
    repos.push_back({{"repo", name}, {"converter", tax.converter_for_repo(name)}});
  return {{"annotator", annotator.empty() ? json() : json(annotator)},
          {"readonly", readonly},
          {"sources", labelsets::label_sources(db)},
          {"queues", labeling::annotate_queue_names()},
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

  // Label and verdict filters give a set of issue ids (views::select_issues, through the owners'
  // readers); the database then filters by it, repository and state, counts and pages: only the
  // rows of the page become JSON.
  IssueFilter f;
  f.repos = repos;
  f.state = state;
  if (converter) {  // the repositories of that converter (among `repo` when given)
    std::vector<std::string> of_converter;
    for (const std::string& name : tax.repositories_of(*converter, stored_repositories(db)))
      if (repos.empty() ||
          std::any_of(repos.begin(), repos.end(), [&](const auto& x) { return iequals(x, name); }))
        of_converter.push_back(name);
    if (of_converter.empty())
      return {{"issues", json::array()}, {"total", 0}, {"page", page}, {"per_page", per_page}};
    f.repos = of_converter;
  }
  views::IssueSelection sel;
  if (need_labels) {
    sel.source = source.value_or("classifier");
    sel.labels = want;
    sel.min_confidence = min_conf;
    sel.max_confidence = max_conf;
    if (agreement) {
      sel.compare = compare;
      sel.agree = *agreement == "agree";
    }
  }
  sel.verdict = verdict;
  views::SelectedIssues selected = views::select_issues(db, sel);
  f.ids = selected.ids;

  auto row_json = [&](json row, const IssueSummary& s) {
    row["converter"] = tax.converter_for_repo(s.repo);
    auto l = selected.labels.find(s.id);
    if (sel.source && l != selected.labels.end()) {
      row["labels_source"] = *sel.source;
      row["source_labels"] = l->second.values;
      row["confidence"] = l->second.confidence;
    }
    return row;
  };
  json out = json::array();
  std::int64_t total = 0;
  if (auto q = param(p, "q")) {  // search hits by rank
    SearchOptions o;
    o.limit = per_page;
    o.offset = (page - 1) * per_page;
    o.where = f;
    o.fts = param(p, "fts").value_or("0") == "1";
    try {
      for (const SearchHit& h : search_issues(db, *q, o, &total))
        out.push_back(row_json(to_json(h), h.issue));
    } catch (const UsageError& e) {
      throw HttpError(400, e.what());
    }
  } else {  // newest first
    total = count_issues(db, f);
    f.limit = per_page;
    f.offset = (page - 1) * per_page;
    for (const IssueSummary& s : list_issues(db, f)) out.push_back(row_json(to_json(s), s));
  }
  return {{"issues", out}, {"total", total}, {"page", page}, {"per_page", per_page}};
}

json issue_json(Db& db, const Taxonomy& tax, const std::string& repo, const std::string& number,
                const std::string& viewer, bool blind) {
  IssueRef ref = client_issue_ref(repo, number);
  views::DossierOptions options;
  if (blind) options.blind_viewer = viewer;
  std::optional<views::IssueDossier> d = views::build_dossier(db, tax, ref, options);
  if (!d) throw HttpError(404, "issue " + to_string(ref) + " is not in the store");
  return views::dossier_json(*d);
}

json label_history_json(Db& db, const Params& p) {
  auto repo = param(p, "repo");
  auto number = param(p, "number");
  if (!repo || !number) throw HttpError(400, "repo and number needed");
  IssueRef ref = client_issue_ref(*repo, *number);
  std::int64_t id = stored_issue_id(db, ref);
  labeling::ManualLabels store(db);
  json rows = json::array();
  for (const auto& r : store.history(id, param(p, "annotator")))
    rows.push_back(labeling::history_row_json(r));
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
  std::int64_t before = store.last_id();
  if (kind == "undo") {
    auto row_id = opt_int(body, "row_id");
    if (!row_id) throw HttpError(400, "undo: \"row_id\" (integer) needed");
    if (!store.undo(id, annotator, *row_id, source))
      throw HttpError(400, "undo: row " + std::to_string(*row_id) + " is not a row of " +
                               annotator + " on " + to_string(ref));
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
  std::vector<std::int64_t> rows = store.ids_after(before, id, annotator);
  result["written"] = rows.size();
  result["row_ids"] = rows;
  return result;
}

json queue_json(Db& db, const Taxonomy& tax, const std::string& rules_dir,
                const std::string& annotator, const Params& p) {
  std::string mode = param(p, "mode").value_or("annotate");
  std::vector<labeling::QueueItem> items;
  if (mode == "annotate") {
    labeling::QueueOptions o;
    o.queue = param(p, "queue").value_or("unlabeled");
    const auto& names = labeling::annotate_queue_names();
    if (std::find(names.begin(), names.end(), o.queue) == names.end())
      throw HttpError(400, "queue: " + join(names, ", "));
    std::string measure = param(p, "uncertainty").value_or("margin");
    if (measure != "margin" && measure != "entropy")
      throw HttpError(400, "uncertainty: margin or entropy");
    o.size = static_cast<int>(int_param(p, "size", 50, 1, 10000));
    o.seed = static_cast<std::uint64_t>(int_param(p, "seed", 1, 0, 1L << 40));
    o.repos = params(p, "repo");
    if (auto lc = real_param(p, "low_confidence", 0, 1)) o.low_confidence = *lc;
    try {
      items = views::annotate_queue(db, tax, rules_dir, annotator, o, measure);
    } catch (const UserError& e) {  // the uncertain queue without a trained model
      throw HttpError(409, e.what());
    }
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

json questions_json(Db& db, const Taxonomy& tax, const std::string& repo, const std::string& number,
                    const std::string& viewer, const Params& p) {
  std::string mode = param(p, "mode").value_or("annotate");
  if (mode != "annotate" && mode != "adjudicate")
    throw HttpError(400, "mode: annotate or adjudicate");
  labeling::QuestionState state;
  const auto& dims = labeling::manual_dimensions();
  for (const std::string& dim : params(p, "dimensions")) {
    if (std::find(dims.begin(), dims.end(), dim) == dims.end())
      throw HttpError(400,
                      "dimensions: symptom, cause, subtype or stage, got " + quoted_excerpt(dim));
    state.asked.push_back(dim);
  }
  if (auto cause = param(p, "cause")) {
    state.given_cause = tax.normalize_label("cause", *cause);
    if (!state.given_cause) throw HttpError(400, "cause: unknown label " + quoted_excerpt(*cause));
  }
  std::vector<std::string> annotators = params(p, "annotators");
  if (mode == "adjudicate" && annotators.size() < 2)
    throw HttpError(400, "annotators: at least two, e.g. A,B");
  IssueRef ref = client_issue_ref(repo, number);
  std::int64_t id = stored_issue_id(db, ref);
  labeling::ManualLabels store(db);
  if (mode == "annotate" && !state.given_cause)
    state.given_cause = store.current(id, viewer, "cause");
  if (mode == "adjudicate") state.compared_cause = store.current(id, annotators.front(), "cause");
  json questions = json::array();
  for (const labeling::Question& q : labeling::item_questions(tax, state)) {
    json choices = json::array();
    for (const TaxonomyLabel* l : q.choices) choices.push_back(codebook_json(*l));
    questions.push_back({{"dimension", q.dimension}, {"choices", choices}});
  }
  auto cause = labeling::subtype_cause(state);
  return {{"repo", ref.repo},
          {"number", ref.number},
          {"mode", mode},
          {"cause", cause ? json(*cause) : json()},
          {"questions", questions}};
}

json agreement_json(Db& db, const Params& p) {
  auto a = source_param(p, "a"), b = source_param(p, "b");
  if (!a || !b) throw HttpError(400, "a and b: the two label sources to compare");
  auto dimension = param(p, "dimension");
  const auto& dims = labeling::manual_dimensions();
  if (dimension && std::find(dims.begin(), dims.end(), *dimension) == dims.end())
    throw HttpError(400, "dimension: symptom, cause, subtype or stage");
  // Any two label sources (annotators, the classifier, the hybrid...): the figures of
  // `convfail agreement --json`.
  return labelsets::agreement_json(labelsets::compute_agreement(db, {*a, *b}, dimension));
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
  o.verdicts = repro::latest_issue_verdicts(db);
  o.histories = repro::runtime_histories(db);
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
  return {std::move(text), t.first, t.second, ""};
}

}  // namespace convfail::web
