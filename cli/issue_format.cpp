#include "cli/issue_format.h"

#include <sstream>

#include "core/text.h"

namespace convfail::cli {
namespace {

std::string ref_of(const IssueSummary& s) {
  return terminal_safe(s.repo) + "#" + std::to_string(s.number);
}

// One-line outside text for a terminal.
std::string safe(const std::string& text) {
  return terminal_safe(text);
}
std::string safe(const std::optional<std::string>& text, const char* none) {
  return text ? terminal_safe(*text) : none;
}

std::string safe_labels(const std::vector<std::string>& labels) {
  std::vector<std::string> out;
  for (const auto& l : labels) out.push_back(terminal_safe(l));
  return join(out, ", ");
}

// A snippet with its highlight markers shown as `h` says, the rest escaped.
std::string show_snippet(const std::string& text, const SnippetHighlight& h) {
  if (h.marker_open.empty() || h.marker_close.empty()) return terminal_safe(text);
  std::string out;
  std::size_t at = 0;
  bool open = false;
  while (at < text.size()) {
    const std::string& marker = open ? h.marker_close : h.marker_open;
    std::size_t next = text.find(marker, at);
    out += terminal_safe(text.substr(at, next == std::string::npos ? next : next - at));
    if (next == std::string::npos) break;
    out += open ? h.show_close : h.show_open;
    open = !open;
    at = next + marker.size();
  }
  if (open) out += h.show_close;
  return out;
}

// "2021-01-05T10:00:00Z" -> "2021-01-05"
std::string day(const std::optional<std::string>& ts) {
  if (!ts) return "-";
  return terminal_safe(ts->substr(0, 10));
}

}  // namespace

std::string format_issue_list(const std::vector<IssueSummary>& issues) {
  std::ostringstream out;
  for (const IssueSummary& s : issues) {
    out << ref_of(s) << "\t" << safe(s.state, "-") << "\t" << day(s.created_at) << "\t"
        << (s.has_fix_link ? "fix" : "-") << "\t";
    if (s.is_pull_request) out << "[PR] ";
    if (!s.labels.empty()) out << "[" << safe_labels(s.labels) << "] ";
    out << safe(s.title) << "\n";
  }
  return out.str();
}

std::string format_issue_detail(const IssueDetail& d) {
  const IssueSummary& s = d.summary;
  std::ostringstream out;
  out << ref_of(s) << (s.is_pull_request ? " (pull request)" : "") << ": " << safe(s.title) << "\n";
  out << "state:   " << safe(s.state, "-") << (s.has_fix_link ? " (linked to a fix)" : "") << "\n";
  out << "author:  " << safe(s.author, "-");
  if (d.author_association) out << " (" << safe(*d.author_association) << ")";
  out << "\n";
  out << "created: " << safe(s.created_at, "-") << "\n";
  if (s.updated_at) out << "updated: " << safe(*s.updated_at) << "\n";
  if (s.closed_at) out << "closed:  " << safe(*s.closed_at) << "\n";
  out << "labels:  " << (s.labels.empty() ? "-" : safe_labels(s.labels)) << "\n";
  if (s.html_url) out << "url:     " << safe(*s.html_url) << "\n";
  out << "\n" << (d.body ? terminal_safe(*d.body, true) : std::string("(no body)")) << "\n";
  out << "\n-- " << d.comments.size() << " comment(s)";
  if (d.reported_comments && *d.reported_comments != static_cast<std::int64_t>(d.comments.size()))
    out << " stored, " << *d.reported_comments << " on GitHub";
  out << "\n";
  for (const CommentView& c : d.comments) {
    out << "\n## " << safe(c.author, "(unknown)");
    if (c.author_association) out << " (" << safe(*c.author_association) << ")";
    if (c.created_at) out << ", " << safe(*c.created_at);
    out << "\n" << terminal_safe(c.body.value_or(""), true) << "\n";
  }
  if (!d.timeline.empty()) {
    out << "\n-- timeline\n";
    for (const TimelineEventView& e : d.timeline) {
      out << "  " << safe(e.created_at, "-") << "  " << safe(e.event, "?");
      if (e.actor) out << " by " << safe(*e.actor);
      if (e.commit_id) out << " commit " << safe(e.commit_id->substr(0, 12));
      if (e.source_repo) {
        out << " from " << safe(*e.source_repo);
        if (e.source_number) out << "#" << *e.source_number;
      }
      out << "\n";
    }
  }
  return out.str();
}

std::string format_search_hits(const std::vector<SearchHit>& hits,
                               const SnippetHighlight& highlight) {
  std::ostringstream out;
  int rank = 0;
  for (const SearchHit& h : hits) {
    out << ++rank << ". " << ref_of(h.issue) << "  " << safe(h.issue.title) << "  ("
        << safe(h.issue.state, "-");
    if (h.matching_comments) out << ", " << h.matching_comments << " matching comment(s)";
    out << ")\n";
    for (const SearchSnippet& s : h.snippets)
      out << "     " << safe(s.where) << ": " << show_snippet(s.text, highlight) << "\n";
  }
  return out.str();
}

}  // namespace convfail::cli
