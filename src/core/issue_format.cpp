#include "core/issue_format.h"

#include <sstream>

#include "core/text.h"

namespace convfail {
namespace {

std::string ref_of(const IssueSummary& s) {
  return s.repo + "#" + std::to_string(s.number);
}

// "2021-01-05T10:00:00Z" -> "2021-01-05"
std::string day(const std::optional<std::string>& ts) {
  if (!ts) return "-";
  return ts->substr(0, 10);
}

}  // namespace

std::string format_issue_list(const std::vector<IssueSummary>& issues) {
  std::ostringstream out;
  for (const IssueSummary& s : issues) {
    out << ref_of(s) << "\t" << s.state.value_or("-") << "\t" << day(s.created_at) << "\t"
        << (s.has_fix_link ? "fix" : "-") << "\t";
    if (s.is_pull_request) out << "[PR] ";
    if (!s.labels.empty()) out << "[" << join(s.labels, ", ") << "] ";
    out << s.title << "\n";
  }
  return out.str();
}

std::string format_issue_detail(const IssueDetail& d) {
  const IssueSummary& s = d.summary;
  std::ostringstream out;
  out << ref_of(s) << (s.is_pull_request ? " (pull request)" : "") << ": " << s.title << "\n";
  out << "state:   " << s.state.value_or("-") << (s.has_fix_link ? " (linked to a fix)" : "")
      << "\n";
  out << "author:  " << s.author.value_or("-");
  if (d.author_association) out << " (" << *d.author_association << ")";
  out << "\n";
  out << "created: " << s.created_at.value_or("-") << "\n";
  if (s.updated_at) out << "updated: " << *s.updated_at << "\n";
  if (s.closed_at) out << "closed:  " << *s.closed_at << "\n";
  out << "labels:  " << (s.labels.empty() ? "-" : join(s.labels, ", ")) << "\n";
  if (s.html_url) out << "url:     " << *s.html_url << "\n";
  out << "\n" << (d.body ? *d.body : std::string("(no body)")) << "\n";
  out << "\n-- " << d.comments.size() << " comment(s)";
  if (d.reported_comments && *d.reported_comments != static_cast<std::int64_t>(d.comments.size()))
    out << " stored, " << *d.reported_comments << " on GitHub";
  out << "\n";
  for (const CommentView& c : d.comments) {
    out << "\n## " << c.author.value_or("(unknown)");
    if (c.author_association) out << " (" << *c.author_association << ")";
    if (c.created_at) out << ", " << *c.created_at;
    out << "\n" << c.body.value_or("") << "\n";
  }
  if (!d.timeline.empty()) {
    out << "\n-- timeline\n";
    for (const TimelineEventView& e : d.timeline) {
      out << "  " << e.created_at.value_or("-") << "  " << e.event.value_or("?");
      if (e.actor) out << " by " << *e.actor;
      if (e.commit_id) out << " commit " << e.commit_id->substr(0, 12);
      if (e.source_repo) {
        out << " from " << *e.source_repo;
        if (e.source_number) out << "#" << *e.source_number;
      }
      out << "\n";
    }
  }
  return out.str();
}

std::string format_search_hits(const std::vector<SearchHit>& hits) {
  std::ostringstream out;
  int rank = 0;
  for (const SearchHit& h : hits) {
    out << ++rank << ". " << ref_of(h.issue) << "  " << h.issue.title << "  ("
        << h.issue.state.value_or("-");
    if (h.matching_comments) out << ", " << h.matching_comments << " matching comment(s)";
    out << ")\n";
    for (const SearchSnippet& s : h.snippets) out << "     " << s.where << ": " << s.text << "\n";
  }
  return out.str();
}

}  // namespace convfail
