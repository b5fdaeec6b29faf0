#include "core/issue_rows.h"

namespace convfail {

void for_each_comment(Db& db, std::optional<std::int64_t> issue_id,
                      const std::function<void(CommentRow&&)>& visit) {
  Stmt st(db,
          std::string("SELECT issue_id, position, author, author_association, body FROM comments") +
              (issue_id ? " WHERE issue_id = ?" : "") + " ORDER BY issue_id, position");
  if (issue_id) st.bind(1, *issue_id);
  while (st.step()) visit({st.int64(0), st.int64(1), st.text(2), st.text(3), st.text(4)});
}

void for_each_issue_label(Db& db, const std::function<void(std::int64_t, std::string&&)>& visit) {
  Stmt st(db, "SELECT issue_id, name FROM issue_labels ORDER BY issue_id, name");
  while (st.step()) visit(st.int64(0), st.text(1));
}

}  // namespace convfail
