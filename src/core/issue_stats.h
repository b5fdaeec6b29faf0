// Counts over the issue store: per repository, per state, per label; what `stats` prints.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/db.h"
#include "core/json_util.h"

namespace convfail {

struct RepoStats {
  std::string repo;
  std::string converter;    // from the taxonomy (the repo's own name when it has none)
  std::int64_t issues = 0;  // pull requests not counted
  std::int64_t pull_requests = 0;
  std::int64_t open = 0;
  std::int64_t closed = 0;
  std::int64_t with_fix_link = 0;
  std::int64_t comments = 0;  // stored comments of its issues and pull requests
};

struct IssueStats {
  std::int64_t repositories = 0;
  std::int64_t issues = 0;  // pull requests not counted
  std::int64_t pull_requests = 0;
  std::int64_t with_fix_link = 0;
  std::int64_t comments = 0;
  std::int64_t timeline_events = 0;
  std::vector<std::pair<std::string, std::int64_t>> states;  // issue state -> count
  std::vector<std::pair<std::string, std::int64_t>> labels;  // top labels of issues, by count
  std::int64_t distinct_labels = 0;
  std::vector<RepoStats> per_repo;
};

// `converter_of` names a repository's converter (may be empty: the repo name is kept).
IssueStats compute_stats(Db& db, int top_labels,
                         const std::function<std::string(const std::string&)>& converter_of = {});

Json to_json(const IssueStats& s);
// A plain-text summary: totals, then one table per breakdown.
std::string format_stats(const IssueStats& s);

}  // namespace convfail
