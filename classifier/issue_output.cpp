#include "classifier/issue_output.h"

namespace convfail::classifier {

IssueRunOutput read_issue_output(Db& db, std::int64_t run_id, std::int64_t issue_id) {
  IssueRunOutput out;
  out.run_id = run_id;
  Stmt l(db,
         "SELECT l.dimension, l.label, l.subtype, l.confidence, c.probability "
         "FROM classifier_labels l LEFT JOIN classifier_calibrated c ON c.run_id = l.run_id "
         "AND c.issue_id = l.issue_id AND c.dimension = l.dimension "
         "WHERE l.run_id = ? AND l.issue_id = ? ORDER BY l.dimension");
  l.bind(1, run_id).bind(2, issue_id);
  while (l.step())
    out.labels.push_back({l.text(0), l.opt_text(1), l.opt_text(2), l.real(3),
                          l.is_null(4) ? std::nullopt : std::optional<double>(l.real(4))});
  Stmt e(db,
         "SELECT dimension, label, rule_id, field, matched_text, field_index, span_start, "
         "span_end, weight FROM classifier_evidence WHERE run_id = ? AND issue_id = ? "
         "ORDER BY weight DESC, id");
  e.bind(1, run_id).bind(2, issue_id);
  while (e.step())
    out.evidence.push_back({e.text(0), e.text(1), e.text(2), e.text(3), e.text(4), e.int64(5),
                            e.int64(6), e.int64(7), e.real(8)});
  Stmt x(db,
         "SELECT dimension, label, kind, weight, repro_run_id, run_kind, verdict, step, "
         "signature, summary FROM classifier_execution_evidence WHERE run_id = ? AND "
         "issue_id = ? ORDER BY dimension, kind");
  x.bind(1, run_id).bind(2, issue_id);
  while (x.step())
    out.execution.push_back({x.text(0), x.text(1), x.text(2), x.real(3), x.int64(4), x.text(5),
                             x.text(6), x.opt_text(7), x.opt_text(8), x.text(9)});
  Stmt f(db,
         "SELECT kind, value FROM classifier_extractions WHERE run_id = ? AND issue_id = ? "
         "ORDER BY kind, value");
  f.bind(1, run_id).bind(2, issue_id);
  while (f.step()) out.facts.push_back({f.text(0), f.text(1)});
  return out;
}

}  // namespace convfail::classifier
