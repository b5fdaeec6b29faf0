// Plain-text rendering of listings, single issues and search hits (the non --json output).
#pragma once

#include <string>
#include <vector>

#include "core/issue_queries.h"

namespace convfail {

// One line per issue: repo#number, state, date, fix mark, labels, title.
std::string format_issue_list(const std::vector<IssueSummary>& issues);
// Header (title, state, dates, labels, URL), body, then the comments with author/association.
std::string format_issue_detail(const IssueDetail& d);
// Rank, repo#number, title, then the snippets indented.
std::string format_search_hits(const std::vector<SearchHit>& hits);

}  // namespace convfail
