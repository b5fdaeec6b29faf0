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

// Stops a walk of the issue listing that a server keeps going forever (the same issues again
// under fresh cursors or page numbers), shared by the REST and the GraphQL walk: after
// kStalePages pages in a row that bring no issue unseen in this walk, or when the walk has
// been given more issues than the listing's totalCount allows plus a margin.
class WalkGuard {
 public:
  static constexpr int kStalePages = 3;
  void start();
  void expect_total(std::int64_t total);  // the first totalCount of the walk counts
  // A page's issue (and pull request) numbers; `has_next`: the server offers another page.
  // Returns why the walk must stop, or nullopt.
  std::optional<std::string> page(const std::vector<std::int64_t>& numbers, bool has_next);

 private:
  std::set<std::int64_t> seen_;
  int stale_ = 0;
  std::int64_t delivered_ = 0;
  std::optional<std::int64_t> total_;
};

}  // namespace convfail::crawler
