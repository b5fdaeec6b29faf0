#include "cli/issue_view.h"

#include <algorithm>
#include <sstream>

#include "core/issue_ref.h"
#include "core/text.h"

namespace convfail::cli {
namespace {

// Issue text for the terminal: CR LF as a line break, other control characters escaped.
std::string safe_text(std::string_view text) {
  std::string s;
  s.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i)
    if (!(text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) s += text[i];
  return terminal_safe(s, true);
}

void split_lines(const std::string& text, std::vector<std::string>& out) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
  }
}

}  // namespace

std::string IssueView::mark(const std::string& text, bool colour) {
  return colour ? "\x1b[7;33m" + text + "\x1b[0m" : "[[" + text + "]]";
}

IssueView::IssueView(const views::IssueDossier& d, bool colour) : colour_(colour) {
  const IssueSummary& issue = d.issue.summary;
  repo_ = issue.repo;
  number_ = issue.number;
  title_ = issue.title;
  state_ = issue.state.value_or("");
  created_ = issue.created_at.value_or("");
  closed_ = issue.closed_at.value_or("");
  url_ = issue.html_url.value_or("");
  if (!repo_.empty()) url_ = issue_page_url({repo_, number_}, url_);
  labels_ = issue.labels;
  title_marked_ = highlight(title_, d.highlights.title);

  if (d.classifier) {
    for (const auto& l : d.classifier->labels) {
      if (!l.label) continue;
      Suggestion s{*l.label, l.confidence, {}};
      for (const auto& e : d.classifier->evidence)
        if (e.dimension == l.dimension && s.evidence.size() < 3)
          s.evidence.push_back(e.rule + " in " + e.field + ": " + terminal_safe(e.matched_text));
      if (l.dimension == "cause" && l.subtype)
        suggestions_["subtype"] = {*l.subtype, l.confidence, {}};
      suggestions_[l.dimension] = std::move(s);
    }
  }

  std::string body = d.issue.body.value_or("");
  lines_.push_back("--- body ---");
  split_lines(body.empty() ? "(no body)" : highlight(body, d.highlights.body), lines_);
  for (std::size_t i = 0; i < d.issue.comments.size(); ++i) {
    const CommentView& c = d.issue.comments[i];
    lines_.push_back("--- comment " + std::to_string(i + 1) + " by " +
                     terminal_safe(c.author.value_or("")) + " " +
                     terminal_safe(c.created_at.value_or("")) + " ---");
    split_lines(highlight(c.body.value_or(""), d.highlights.comments[i]), lines_);
  }
}

std::string IssueView::highlight(const std::string& text,
                                 const std::vector<views::HighlightRange>& ranges) const {
  std::string out;
  std::size_t at = 0;
  for (const views::HighlightRange& r : ranges) {
    out += safe_text(std::string_view(text).substr(at, r.start - at));
    // Mark each line of the range separately so a page break never leaves a colour open.
    std::istringstream part(text.substr(r.start, r.end - r.start));
    std::string piece;
    bool first = true;
    while (std::getline(part, piece)) {
      if (!first) out += "\n";
      out += piece.empty() ? piece : mark(safe_text(piece), colour_);
      first = false;
    }
    if (text[r.end - 1] == '\n') out += "\n";
    at = r.end;
  }
  out += safe_text(std::string_view(text).substr(at));
  return out;
}

std::string IssueView::ref() const {
  return terminal_safe(repo_) + "#" + std::to_string(number_);
}

std::string IssueView::header() const {
  std::ostringstream out;
  std::string bold = colour_ ? "\x1b[1;36m" : "", reset = colour_ ? "\x1b[0m" : "";
  out << bold << ref() << reset << "  " << title_marked_ << "\n";
  std::string labels;
  for (const auto& l : labels_) labels += (labels.empty() ? "" : ", ") + terminal_safe(l);
  out << "labels: " << (labels.empty() ? "-" : labels)
      << "  state: " << (state_.empty() ? "-" : terminal_safe(state_))
      << "  created: " << (created_.empty() ? "-" : terminal_safe(created_))
      << "  closed: " << (closed_.empty() ? "-" : terminal_safe(closed_)) << "\n";
  out << terminal_safe(url_) << "\n";
  return out.str();
}

}  // namespace convfail::cli
