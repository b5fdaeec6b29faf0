#include "repro/bisect_history.h"

namespace convfail::repro {

std::vector<RuntimeHistory> runtime_histories(Db& db) {
  Stmt st(db,
          "SELECT coalesce(b.issue_id, 0), coalesce(b.campaign_group_id, 0),"
          " coalesce(r.full_name || '#' || i.number, ''), b.model_path, b.from_version,"
          " b.to_version, b.first_bad, b.regressed_in, b.fixed_in, b.newest_known,"
          " b.still_failing FROM bisects b LEFT JOIN issues i ON i.id = b.issue_id"
          " LEFT JOIN repositories r ON r.id = i.repo_id"
          " WHERE (b.issue_id IS NOT NULL OR b.campaign_group_id IS NOT NULL) AND b.id = (SELECT"
          " max(id) FROM bisects c WHERE c.issue_id IS b.issue_id AND c.campaign_group_id IS"
          " b.campaign_group_id AND c.model_sha256 = b.model_sha256)"
          " ORDER BY b.issue_id IS NULL, r.full_name, i.number, b.campaign_group_id, b.id");
  std::vector<RuntimeHistory> out;
  while (st.step()) {
    RuntimeHistory h;
    h.issue_id = st.int64(0);
    h.group_id = st.int64(1);
    h.issue = st.text(2);
    std::string path = st.opt_text(3).value_or("");
    h.model =
        path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    h.from_version = st.text(4);
    h.to_version = st.text(5);
    h.first_bad = st.opt_text(6);
    h.regressed_in = st.opt_text(7);
    h.fixed_in = st.opt_text(8);
    h.newest_known = st.opt_text(9);
    h.still_failing = st.int64(10) != 0;
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace convfail::repro
