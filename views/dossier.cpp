#include "views/dossier.h"

#include "classifier/latest_run.h"

namespace convfail::views {
namespace {

Json opt(const std::optional<std::string>& s) {
  return s ? Json(*s) : Json();
}
Json opt(const std::optional<double>& d) {
  return d ? Json(*d) : Json();
}

Json ranges_json(const std::string& text, const std::vector<HighlightRange>& ranges) {
  Json out = Json::array();
  for (const HighlightRange& r : ranges)
    out.push_back({utf16_index(text, r.start), utf16_index(text, r.end), r.rules});
  return out;
}

}  // namespace

std::optional<IssueDossier> build_dossier(Db& db, const Taxonomy& tax, const IssueRef& ref,
                                          const DossierOptions& options) {
  std::optional<IssueDetail> detail = get_issue(db, ref);
  if (!detail) return std::nullopt;
  IssueDossier d;
  d.issue = std::move(*detail);
  std::int64_t id = d.issue.summary.id;
  d.converter = tax.converter_for_repo(d.issue.summary.repo);
  if (std::int64_t run = classifier::latest_run_id(db))
    d.classifier = classifier::read_issue_output(db, run, id);
  static const std::vector<classifier::StoredEvidence> kNone;
  const auto& evidence = d.classifier ? d.classifier->evidence : kNone;
  d.highlights.title = highlight_ranges(d.issue.summary.title, "title", 0, evidence);
  d.highlights.body = highlight_ranges(d.issue.body.value_or(""), "body", 0, evidence);
  for (std::size_t i = 0; i < d.issue.comments.size(); ++i)
    d.highlights.comments.push_back(highlight_ranges(
        d.issue.comments[i].body.value_or(""), "comment", static_cast<std::int64_t>(i), evidence));
  labeling::ManualLabels labels(db);
  d.blind = options.blind_viewer.has_value();
  for (auto& r : labels.history(id))
    if (!d.blind || r.annotator == *options.blind_viewer) d.history.push_back(std::move(r));
  for (auto& c : labels.current_labels(id))
    if (!d.blind || c.annotator == *options.blind_viewer) d.current.push_back(std::move(c));
  d.repro = repro::issue_repro_runs(db, id);
  d.verdicts = repro::latest_verdicts(db, id);
  return d;
}

std::optional<IssueDossier> build_dossier(Db& db, const Taxonomy& tax, std::int64_t issue_id,
                                          const DossierOptions& options) {
  Stmt s(db,
         "SELECT r.full_name, i.number FROM issues i JOIN repositories r ON r.id = i.repo_id "
         "WHERE i.id = ?");
  s.bind(1, issue_id);
  if (!s.step()) return std::nullopt;
  IssueRef ref;
  ref.repo = s.text(0);
  ref.number = s.int64(1);
  return build_dossier(db, tax, ref, options);
}

Json dossier_json(const IssueDossier& d) {
  Json j = to_json(d.issue);
  j["converter"] = d.converter;
  Json classifier = nullptr, facts = Json::array();
  if (d.classifier) {
    const classifier::IssueRunOutput& c = *d.classifier;
    Json dims = Json::object(), evidence = Json::array(), execution = Json::array();
    for (const auto& l : c.labels)
      dims[l.dimension] = {{"label", opt(l.label)},
                           {"subtype", opt(l.subtype)},
                           {"confidence", l.confidence},
                           {"probability", opt(l.probability)}};
    for (const auto& e : c.evidence)
      evidence.push_back({{"dimension", e.dimension},
                          {"label", e.label},
                          {"rule", e.rule},
                          {"field", e.field},
                          {"field_index", e.field_index},
                          {"span_start", e.span_start},
                          {"span_end", e.span_end},
                          {"matched_text", e.matched_text},
                          {"weight", e.weight}});
    for (const auto& x : c.execution)
      execution.push_back({{"dimension", x.dimension},
                           {"label", x.label},
                           {"kind", x.kind},
                           {"weight", x.weight},
                           {"repro_run_id", x.repro_run_id},
                           {"run_kind", x.run_kind},
                           {"verdict", x.verdict},
                           {"step", opt(x.step)},
                           {"signature", opt(x.signature)},
                           {"summary", x.summary}});
    classifier = {{"run_id", c.run_id},
                  {"dimensions", dims},
                  {"evidence", evidence},
                  {"execution", execution}};
    for (const auto& f : c.facts) facts.push_back({{"kind", f.kind}, {"value", f.value}});
  }
  j["classifier"] = classifier;
  j["facts"] = facts;
  Json comments = Json::array();
  for (std::size_t i = 0; i < d.issue.comments.size(); ++i)
    comments.push_back(
        ranges_json(d.issue.comments[i].body.value_or(""), d.highlights.comments[i]));
  j["highlights"] = {{"title", ranges_json(d.issue.summary.title, d.highlights.title)},
                     {"body", ranges_json(d.issue.body.value_or(""), d.highlights.body)},
                     {"comments", comments}};
  Json history = Json::array();
  for (const auto& r : d.history) history.push_back(labeling::history_row_json(r));
  j["history"] = history;
  j["blind"] = d.blind;
  Json current = Json::object();
  for (const auto& c : d.current)
    current[c.annotator][c.dimension] = {{"value", opt(c.value)}, {"kind", c.kind}};
  j["current"] = current;
  Json repro = Json::array();
  for (const auto& r : d.repro)
    repro.push_back({{"id", r.id},
                     {"verdict", r.verdict},
                     {"step", opt(r.step)},
                     {"signature", opt(r.signature)},
                     {"reason", opt(r.reason)},
                     {"output_name", opt(r.output_name)},
                     {"max_abs_error", opt(r.max_abs_error)},
                     {"started_at", r.started_at},
                     {"message", opt(r.message)},
                     {"traceback", opt(r.traceback)}});
  j["repro"] = repro;
  Json verdicts = Json::array();
  for (const auto& v : d.verdicts)
    verdicts.push_back({{"repro_run_id", v.id},
                        {"kind", v.kind},
                        {"verdict", v.verdict},
                        {"step", v.step},
                        {"signature", v.signature},
                        {"started_at", v.started_at}});
  j["verdicts"] = verdicts;
  return j;
}

}  // namespace convfail::views
