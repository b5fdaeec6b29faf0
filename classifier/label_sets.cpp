#include "classifier/label_sets.h"

#include "core/error.h"

namespace convfail {
namespace {

// Collects rows (issue_id, repo, number, created_at, dimension, value[, confidence]) into
// IssueLabels in issue order.
std::vector<IssueLabels> collect(Stmt& st, bool with_confidence) {
  std::vector<IssueLabels> out;
  std::map<std::int64_t, std::size_t> index;
  while (st.step()) {
    std::int64_t id = st.int64(0);
    auto it = index.find(id);
    if (it == index.end()) {
      IssueLabels l;
      l.issue_id = id;
      l.repo = st.text(1);
      l.number = st.int64(2);
      l.created_at = st.opt_text(3);
      it = index.emplace(id, out.size()).first;
      out.push_back(std::move(l));
    }
    IssueLabels& l = out[it->second];
    std::string dim = st.text(4);
    if (!st.is_null(5)) l.values[dim] = st.text(5);
    if (with_confidence) l.confidence[dim] = st.real(6);
  }
  return out;
}

}  // namespace

std::vector<IssueLabels> load_annotator_labels(Db& db, const std::string& annotator) {
  // The latest row per (issue, dimension) wins; a latest row of kind skip/undo clears the value.
  Stmt st(db,
          "SELECT i.id, r.full_name, i.number, i.created_at, m.dimension, "
          "  CASE WHEN m.kind IN ('label','adjudication') THEN m.value END "
          "FROM manual_labels m "
          "JOIN issues i ON i.id = m.issue_id JOIN repositories r ON r.id = i.repo_id "
          "WHERE m.annotator = ?1 AND m.id = (SELECT max(m2.id) FROM manual_labels m2 "
          "  WHERE m2.issue_id = m.issue_id AND m2.annotator = ?1 AND m2.dimension = m.dimension) "
          "ORDER BY r.full_name, i.number, m.dimension");
  st.bind(1, annotator);
  auto out = collect(st, false);
  // Issues whose every dimension was cleared hold no labels.
  std::vector<IssueLabels> kept;
  for (auto& l : out)
    if (!l.values.empty()) kept.push_back(std::move(l));
  return kept;
}

std::vector<IssueLabels> load_classifier_labels(Db& db, std::optional<std::int64_t> run_id) {
  std::int64_t run = run_id ? *run_id : db.scalar("SELECT coalesce(max(id), 0) FROM classifier_runs");
  if (run == 0) return {};
  Stmt st(db,
          "SELECT i.id, r.full_name, i.number, i.created_at, c.dimension, c.label, c.confidence "
          "FROM classifier_labels c "
          "JOIN issues i ON i.id = c.issue_id JOIN repositories r ON r.id = i.repo_id "
          "WHERE c.run_id = ? ORDER BY r.full_name, i.number, c.dimension");
  st.bind(1, run);
  auto out = collect(st, true);
  // Subtypes ride along with the cause row.
  Stmt sub(db,
           "SELECT issue_id, subtype FROM classifier_labels WHERE run_id=? AND dimension='cause' "
           "AND subtype IS NOT NULL");
  sub.bind(1, run);
  std::map<std::int64_t, std::string> subtypes;
  while (sub.step()) subtypes[sub.int64(0)] = sub.text(1);
  for (auto& l : out) {
    auto it = subtypes.find(l.issue_id);
    if (it != subtypes.end()) l.values["subtype"] = it->second;
  }
  return out;
}

std::vector<std::string> label_sources(Db& db) {
  std::vector<std::string> out;
  if (db.scalar("SELECT count(*) FROM classifier_runs") > 0) out.push_back("classifier");
  Stmt st(db, "SELECT DISTINCT annotator FROM manual_labels ORDER BY annotator");
  while (st.step()) out.push_back(st.text(0));
  return out;
}

std::vector<IssueLabels> load_label_set(Db& db, const std::string& source) {
  std::vector<IssueLabels> out;
  if (source == "classifier") {
    out = load_classifier_labels(db);
  } else if (source.rfind("classifier:", 0) == 0) {
    out = load_classifier_labels(db, std::stoll(source.substr(11)));
  } else {
    out = load_annotator_labels(db, source);
  }
  if (out.empty()) {
    std::string names;
    for (const auto& s : label_sources(db)) names += (names.empty() ? "" : ", ") + s;
    throw UserError("no labels from source \"" + source + "\"; sources with labels: " +
                    (names.empty() ? "none (run classify, label or labels import)" : names));
  }
  return out;
}

}  // namespace convfail
