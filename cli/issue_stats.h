// What `stats` prints of the issue store's counts (core/issue_queries' compute_stats).
#pragma once

#include <string>

#include "core/issue_queries.h"
#include "core/json_util.h"

namespace convfail::cli {

Json to_json(const IssueStats& s);
// A plain-text summary: totals, then one table per breakdown.
std::string format_stats(const IssueStats& s);

}  // namespace convfail::cli
