#include "core/issue_stats.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace convfail {

IssueStats compute_stats(Db& db, int top_labels,
                         const std::function<std::string(const std::string&)>& converter_of) {
  IssueStats s;
  Stmt repos(db,
             "SELECT r.full_name, "
             "  sum(i.is_pull_request = 0), sum(i.is_pull_request = 1), "
             "  sum(i.is_pull_request = 0 AND i.state = 'open'), "
             "  sum(i.is_pull_request = 0 AND i.state = 'closed'), "
             "  sum(i.is_pull_request = 0 AND i.has_fix_link = 1), "
             "  (SELECT count(*) FROM comments c JOIN issues j ON j.id = c.issue_id "
             "   WHERE j.repo_id = r.id) "
             "FROM repositories r JOIN issues i ON i.repo_id = r.id "
             "GROUP BY r.id ORDER BY sum(i.is_pull_request = 0) DESC, r.full_name");
  while (repos.step()) {
    RepoStats r;
    r.repo = repos.text(0);
    r.converter = converter_of ? converter_of(r.repo) : r.repo;
    r.issues = repos.int64(1);
    r.pull_requests = repos.int64(2);
    r.open = repos.int64(3);
    r.closed = repos.int64(4);
    r.with_fix_link = repos.int64(5);
    r.comments = repos.int64(6);
    s.issues += r.issues;
    s.pull_requests += r.pull_requests;
    s.with_fix_link += r.with_fix_link;
    s.per_repo.push_back(std::move(r));
  }
  s.repositories = static_cast<std::int64_t>(s.per_repo.size());
  s.comments = db.scalar("SELECT count(*) FROM comments");
  s.timeline_events = db.scalar("SELECT count(*) FROM timeline_events");
  Stmt states(db,
              "SELECT coalesce(state, '(none)'), count(*) FROM issues WHERE is_pull_request = 0 "
              "GROUP BY 1 ORDER BY 2 DESC, 1");
  while (states.step()) s.states.emplace_back(states.text(0), states.int64(1));
  Stmt labels(db,
              "SELECT l.name, count(*) FROM issue_labels l JOIN issues i ON i.id = l.issue_id "
              "WHERE i.is_pull_request = 0 GROUP BY l.name ORDER BY 2 DESC, 1");
  while (labels.step()) {
    ++s.distinct_labels;
    if (static_cast<int>(s.labels.size()) < top_labels)
      s.labels.emplace_back(labels.text(0), labels.int64(1));
  }
  return s;
}

Json to_json(const IssueStats& s) {
  Json per_repo = Json::array();
  for (const RepoStats& r : s.per_repo) {
    per_repo.push_back({{"repo", r.repo},
                        {"converter", r.converter},
                        {"issues", r.issues},
                        {"pull_requests", r.pull_requests},
                        {"open", r.open},
                        {"closed", r.closed},
                        {"with_fix_link", r.with_fix_link},
                        {"comments", r.comments}});
  }
  Json states = Json::object();
  for (auto& [k, v] : s.states) states[k] = v;
  Json labels = Json::array();
  for (auto& [k, v] : s.labels) labels.push_back({{"label", k}, {"issues", v}});
  return Json{{"repositories", s.repositories},
              {"issues", s.issues},
              {"pull_requests", s.pull_requests},
              {"with_fix_link", s.with_fix_link},
              {"comments", s.comments},
              {"timeline_events", s.timeline_events},
              {"states", states},
              {"distinct_labels", s.distinct_labels},
              {"top_labels", labels},
              {"per_repository", per_repo}};
}

std::string format_stats(const IssueStats& s) {
  std::ostringstream out;
  out << s.issues << " issue(s) in " << s.repositories << " repositor"
      << (s.repositories == 1 ? "y" : "ies") << ", " << s.comments << " comment(s), "
      << s.with_fix_link << " with a fix link";
  if (s.pull_requests) out << " (" << s.pull_requests << " pull request(s) not counted)";
  out << "\n";
  if (s.per_repo.empty()) return out.str();
  std::size_t w = 10;
  for (const RepoStats& r : s.per_repo) w = std::max(w, r.repo.size());
  out << "\nper repository\n";
  char line[512];
  std::snprintf(line, sizeof line, "  %-*s  %-12s %7s %6s %7s %6s %9s\n", static_cast<int>(w),
                "repository", "converter", "issues", "open", "closed", "fixed", "comments");
  out << line;
  for (const RepoStats& r : s.per_repo) {
    std::snprintf(line, sizeof line, "  %-*s  %-12s %7lld %6lld %7lld %6lld %9lld\n",
                  static_cast<int>(w), r.repo.c_str(), r.converter.c_str(),
                  static_cast<long long>(r.issues), static_cast<long long>(r.open),
                  static_cast<long long>(r.closed), static_cast<long long>(r.with_fix_link),
                  static_cast<long long>(r.comments));
    out << line;
  }
  out << "\nper state\n";
  for (auto& [k, v] : s.states) out << "  " << k << ": " << v << "\n";
  if (!s.labels.empty()) {
    out << "\ntop labels (" << s.labels.size() << " of " << s.distinct_labels << ")\n";
    for (auto& [k, v] : s.labels) {
      std::snprintf(line, sizeof line, "  %6lld  %s\n", static_cast<long long>(v), k.c_str());
      out << line;
    }
  }
  return out.str();
}

}  // namespace convfail
