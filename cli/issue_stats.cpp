#include "cli/issue_stats.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace convfail::cli {

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

}  // namespace convfail::cli
