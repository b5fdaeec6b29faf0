#include "classifier/issue_text.h"

#include <map>

#include "core/issue_rows.h"

namespace convfail::classifier {

IssueText issue_text_from_json(const Json& issue, const std::string& repo) {
  IssueText t;
  t.repo = !repo.empty() ? repo : opt_string(issue, "repo").value_or("");
  t.number = opt_int(issue, "number").value_or(0);
  t.title = opt_string(issue, "title").value_or("");
  t.body = opt_string(issue, "body").value_or("");
  t.author =
      opt_string(issue, "author").value_or(opt_nested_string(issue, "user", "login").value_or(""));
  auto labels = issue.find("labels");
  if (labels != issue.end() && labels->is_array()) {
    for (const Json& l : *labels) {
      if (l.is_string())
        t.labels.push_back(l.get<std::string>());
      else if (l.is_object())
        t.labels.push_back(opt_string(l, "name").value_or(""));
    }
  }
  auto comments = issue.find("comments");
  if (comments != issue.end() && comments->is_array()) {
    for (const Json& c : *comments) {
      if (!c.is_object()) continue;
      CommentText ct;
      ct.author =
          opt_string(c, "author").value_or(opt_nested_string(c, "user", "login").value_or(""));
      ct.author_association = opt_string(c, "author_association").value_or("");
      ct.body = opt_string(c, "body").value_or("");
      t.comments.push_back(std::move(ct));
    }
  }
  return t;
}

namespace {

std::vector<IssueText> load_where(Db& db, const std::string& where,
                                  const std::vector<std::string>& params) {
  std::vector<IssueText> out;
  std::map<std::int64_t, std::size_t> index;
  {
    Stmt st(db,
            "SELECT i.id, r.full_name, i.number, i.title, coalesce(i.body,''), "
            "coalesce(i.author,'') FROM issues i JOIN repositories r ON r.id = i.repo_id "
            "WHERE i.is_pull_request = 0 " +
                where + " ORDER BY r.full_name COLLATE NOCASE, i.number");
    for (std::size_t k = 0; k < params.size(); ++k) st.bind(static_cast<int>(k + 1), params[k]);
    while (st.step()) {
      IssueText t;
      t.issue_id = st.int64(0);
      t.repo = st.text(1);
      t.number = st.int64(2);
      t.title = st.text(3);
      t.body = st.text(4);
      t.author = st.text(5);
      index[t.issue_id] = out.size();
      out.push_back(std::move(t));
    }
  }
  if (out.empty()) return out;
  for_each_issue_label(db, [&](std::int64_t issue_id, std::string&& name) {
    auto it = index.find(issue_id);
    if (it != index.end()) out[it->second].labels.push_back(std::move(name));
  });
  for_each_comment(db, std::nullopt, [&](CommentRow&& c) {
    auto it = index.find(c.issue_id);
    if (it == index.end()) return;
    out[it->second].comments.push_back(
        {std::move(c.author), std::move(c.author_association), std::move(c.body)});
  });
  return out;
}

}  // namespace

std::vector<IssueText> load_issue_texts(Db& db, const std::vector<std::string>& repos) {
  if (repos.empty()) return load_where(db, "", {});
  std::string in;
  for (std::size_t k = 1; k <= repos.size(); ++k) in += (k > 1 ? ",?" : "?") + std::to_string(k);
  return load_where(db, "AND r.full_name COLLATE NOCASE IN (" + in + ")", repos);
}

std::optional<IssueText> load_issue_text(Db& db, const std::string& repo, std::int64_t number) {
  auto v = load_where(db, "AND r.full_name = ?1 COLLATE NOCASE AND i.number = ?2",
                      {repo, std::to_string(number)});
  if (v.empty()) return std::nullopt;
  return std::move(v.front());
}

}  // namespace convfail::classifier
