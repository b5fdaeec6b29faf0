// Plain-text rendering of listings, single issues and search hits (the non --json output), for a
// terminal: every text from outside (titles, bodies, labels, logins, comments, snippets, URLs)
// passes through terminal_safe (one-line fields without newlines, bodies keeping them).
#pragma once

#include <string>
#include <vector>

#include "core/issue_queries.h"

namespace convfail::cli {

// One line per issue: repo#number, state, date, fix mark, labels, title.
std::string format_issue_list(const std::vector<IssueSummary>& issues);
// Header (title, state, dates, labels, URL), body, then the comments with author/association.
std::string format_issue_detail(const IssueDetail& d);
// How the highlight markers in search snippets are shown: every `marker_open`/`marker_close`
// (the strings given to SearchOptions) becomes `show_open`/`show_close` (e.g. bold on/off), the
// text between them escaped. Empty markers: the snippets are escaped as they are.
struct SnippetHighlight {
  std::string marker_open, marker_close, show_open, show_close;
};
// Rank, repo#number, title, then the snippets indented.
std::string format_search_hits(const std::vector<SearchHit>& hits,
                               const SnippetHighlight& highlight = {});

}  // namespace convfail::cli
