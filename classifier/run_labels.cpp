#include "classifier/run_labels.h"

#include "classifier/latest_run.h"

namespace convfail::classifier {

std::vector<labeling::IssueLabels> run_labels(Db& db, std::optional<std::int64_t> run_id) {
  std::int64_t run = run_id ? *run_id : latest_run_id(db);
  if (run == 0) return {};
  Stmt st(db,
          "SELECT i.id, r.full_name, i.number, i.created_at, c.dimension, c.label, c.confidence "
          "FROM classifier_labels c "
          "JOIN issues i ON i.id = c.issue_id JOIN repositories r ON r.id = i.repo_id "
          "WHERE c.run_id = ? ORDER BY r.full_name, i.number, c.dimension");
  st.bind(1, run);
  auto out = labeling::collect_label_rows(st, true);
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

StoredCalibration stored_calibration(Db& db, std::int64_t run_id) {
  StoredCalibration c;
  Stmt st(db, "SELECT dimension, threshold FROM classifier_calibrations WHERE run_id = ?");
  st.bind(1, run_id);
  while (st.step())
    c.thresholds[st.text(0)] = st.is_null(1) ? std::nullopt : std::optional<double>(st.real(1));
  Stmt p(db, "SELECT issue_id, dimension, probability FROM classifier_calibrated WHERE run_id = ?");
  p.bind(1, run_id);
  while (p.step()) c.probability[{p.int64(0), p.text(1)}] = p.real(2);
  return c;
}

}  // namespace convfail::classifier
