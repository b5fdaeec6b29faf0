// What one crawl did to each issue, and the storing of one page of issues: shared by the REST
// walk (crawler.cpp) and the GraphQL walk (graphql_crawl.cpp), so both store the same rows and
// count them the same way.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/db.h"
#include "core/issue_store.h"
#include "crawler/crawl_state.h"
#include "crawler/crawler.h"

namespace convfail::crawler {

// One issue of a page, in the REST shape, with what was fetched for it.
struct FetchedIssue {
  Json issue;
  std::int64_t number = 0;
  bool details = false;  // new or changed: its comments and timeline are fetched and stored
  Json comments = Json::array();
  Json timeline = Json::array();
  bool have_comments = false, have_timeline = false;
};

class CrawlLedger {
 public:
  CrawlLedger(Db& db, IssueStore& store);

  // True when `issue` is not stored yet or its updated_at differs from the stored one.
  bool needs_details(const std::string& repo, std::int64_t number, const Json& issue);

  void pull_request_skipped(std::int64_t number) { prs_.insert(number); }
  void excluded(std::int64_t number) { excluded_.insert(number); }

  // Stores a page's issues, comments and timelines; call inside the page's transaction. Raises
  // `state.max_updated_at`, sets `*changed` when a row changed, and returns the numbers of the
  // issues inserted or updated. A schema error names the issue and `served_by`; the caller's
  // transaction then stores nothing.
  std::vector<std::int64_t> store_page(const std::string& repo, std::vector<FetchedIssue>& items,
                                       CrawlState& state, const std::string& served_by,
                                       bool* changed);

  // The summary's per-issue counts (each issue once, by its most telling outcome).
  void fill(CrawlSummary& summary) const;

 private:
  IssueStore& store_;
  Stmt stored_updated_at_;
  // Per issue number: 2 new, 1 updated, 0 unchanged (the highest wins).
  std::map<std::int64_t, int> outcome_;
  std::set<std::int64_t> prs_, excluded_, comments_changed_, timelines_changed_;
};

}  // namespace convfail::crawler
