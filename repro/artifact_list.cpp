#include "repro/artifact_list.h"

#include <algorithm>

#include "core/error.h"

namespace convfail::repro {

std::vector<StoredArtifact> list_artifacts(Db& db, std::optional<std::int64_t> issue_id,
                                           const std::optional<std::string>& kind) {
  static const char* const kinds[] = {"model", "archive", "script", "external_link"};
  if (kind &&
      std::none_of(std::begin(kinds), std::end(kinds), [&](const char* k) { return *kind == k; }))
    throw UsageError("--kind must be model, archive, script or external_link, got '" + *kind + "'");
  Stmt st(db,
          "SELECT a.id, r.full_name || '#' || i.number, a.kind, coalesce(a.source_field, ''), "
          "a.url, a.code, a.sha256, a.size_bytes, a.local_path, a.fetch_status, a.found_at "
          "FROM artifacts a JOIN issues i ON i.id = a.issue_id "
          "JOIN repositories r ON r.id = i.repo_id "
          "WHERE (?1 IS NULL OR a.issue_id = ?1) AND (?2 IS NULL OR a.kind = ?2) "
          "ORDER BY r.full_name, i.number, a.id");
  if (issue_id) st.bind(1, *issue_id);
  if (kind) st.bind(2, *kind);
  std::vector<StoredArtifact> out;
  while (st.step()) {
    StoredArtifact a;
    a.id = st.int64(0);
    a.issue = st.text(1);
    a.kind = st.text(2);
    a.source_field = st.text(3);
    a.url = st.opt_text(4);
    if (auto code = st.opt_text(5))
      a.code_lines = static_cast<std::int64_t>(std::count(code->begin(), code->end(), '\n')) +
                     (code->empty() || code->back() == '\n' ? 0 : 1);
    a.sha256 = st.opt_text(6);
    if (!st.is_null(7)) a.size_bytes = st.int64(7);
    a.local_path = st.opt_text(8);
    a.fetch_status = st.opt_text(9);
    a.found_at = st.text(10);
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace convfail::repro
