#include "cli/issue_view.h"

#include <algorithm>
#include <sstream>

#include "classifier/latest_run.h"
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

IssueView::IssueView(Db& db, std::int64_t issue_id, bool colour) : colour_(colour) {
  Stmt st(db,
          "SELECT r.full_name, i.number, i.title, coalesce(i.body, ''), coalesce(i.state, ''), "
          "coalesce(i.created_at, ''), coalesce(i.closed_at, ''), coalesce(i.html_url, '') "
          "FROM issues i JOIN repositories r ON r.id = i.repo_id WHERE i.id = ?");
  st.bind(1, issue_id);
  std::string body;
  if (st.step()) {
    repo_ = st.text(0);
    number_ = st.int64(1);
    title_ = st.text(2);
    body = st.text(3);
    state_ = st.text(4);
    created_ = st.text(5);
    closed_ = st.text(6);
    url_ = st.text(7);
  }
  if (!repo_.empty()) url_ = issue_page_url({repo_, number_}, url_);
  Stmt lab(db, "SELECT name FROM issue_labels WHERE issue_id = ? ORDER BY name");
  lab.bind(1, issue_id);
  while (lab.step()) labels_.push_back(lab.text(0));

  std::int64_t run = classifier::latest_run_id(db);
  if (run) {
    Stmt ev(db,
            "SELECT dimension, rule_id, field, field_index, span_start, span_end, matched_text "
            "FROM classifier_evidence WHERE run_id = ? AND issue_id = ? ORDER BY weight DESC, id");
    ev.bind(1, run).bind(2, issue_id);
    while (ev.step())
      evidence_.push_back(
          {ev.text(0), ev.text(1), ev.text(2), ev.text(6), ev.int64(3), ev.int64(4), ev.int64(5)});
    Stmt cl(db,
            "SELECT dimension, label, subtype, confidence FROM classifier_labels "
            "WHERE run_id = ? AND issue_id = ? AND label IS NOT NULL");
    cl.bind(1, run).bind(2, issue_id);
    while (cl.step()) {
      std::string dim = cl.text(0);
      Suggestion s{cl.text(1), cl.real(3), {}};
      for (const auto& e : evidence_)
        if (e.dimension == dim && s.evidence.size() < 3)
          s.evidence.push_back(e.rule_id + " in " + e.field + ": " + terminal_safe(e.matched_text));
      if (dim == "cause" && !cl.is_null(2)) suggestions_["subtype"] = {cl.text(2), cl.real(3), {}};
      suggestions_[dim] = std::move(s);
    }
  }

  if (body.empty()) body = "(no body)";
  lines_.push_back("--- body ---");
  split_lines(highlight(body, "body", 0), lines_);
  Stmt com(db,
           "SELECT position, coalesce(author, ''), coalesce(created_at, ''), coalesce(body, '') "
           "FROM comments WHERE issue_id = ? ORDER BY position");
  com.bind(1, issue_id);
  while (com.step()) {
    lines_.push_back("--- comment " + std::to_string(com.int64(0) + 1) + " by " +
                     terminal_safe(com.text(1)) + " " + terminal_safe(com.text(2)) + " ---");
    split_lines(highlight(com.text(3), "comment", com.int64(0)), lines_);
  }
}

std::string IssueView::highlight(const std::string& text, const std::string& field,
                                 std::int64_t field_index) const {
  // Byte ranges to mark: exact spans of evidence on this field, and for evidence on derived
  // fields (code, traceback, error_line, ...) the first occurrence of the matched text.
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (const auto& e : evidence_) {
    bool same_field =
        e.field == field || (field == "comment" && e.field.find("comment") != std::string::npos);
    if (same_field && e.field_index == field_index && e.span_start >= 0 &&
        e.span_end <= static_cast<std::int64_t>(text.size()) && e.span_start < e.span_end &&
        text.compare(e.span_start, e.span_end - e.span_start, e.matched_text) == 0) {
      ranges.emplace_back(e.span_start, e.span_end);
    } else if (e.field != "title" && e.matched_text.size() >= 3) {
      auto pos = text.find(e.matched_text);
      if (pos != std::string::npos) ranges.emplace_back(pos, pos + e.matched_text.size());
    }
  }
  if (ranges.empty()) return safe_text(text);
  std::sort(ranges.begin(), ranges.end());
  std::string out;
  std::size_t at = 0;
  for (std::size_t i = 0; i < ranges.size();) {
    auto [start, end] = ranges[i];
    for (++i; i < ranges.size() && ranges[i].first <= end; ++i)
      end = std::max(end, ranges[i].second);
    if (start < at) start = at;
    out += safe_text(std::string_view(text).substr(at, start - at));
    // Mark each line of the range separately so a page break never leaves a colour open.
    std::istringstream part(text.substr(start, end - start));
    std::string piece;
    bool first = true;
    while (std::getline(part, piece)) {
      if (!first) out += "\n";
      out += piece.empty() ? piece : mark(safe_text(piece), colour_);
      first = false;
    }
    if (end > start && text[end - 1] == '\n') out += "\n";
    at = end;
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
  std::string title = terminal_safe(title_);
  for (const auto& e : evidence_) {
    if (e.field == "title" && e.span_start >= 0 && e.span_start < e.span_end &&
        e.span_end <= static_cast<std::int64_t>(title_.size()) &&
        title_.compare(e.span_start, e.span_end - e.span_start, e.matched_text) == 0) {
      title = terminal_safe(title_.substr(0, e.span_start)) +
              mark(terminal_safe(e.matched_text), colour_) +
              terminal_safe(title_.substr(e.span_end));
      break;  // one mark in the title keeps the offsets of the others meaningless; show one
    }
  }
  out << bold << ref() << reset << "  " << title << "\n";
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
