// The one skeleton of a crawl, shared by the REST walk (crawler.cpp) and the GraphQL walk
// (graphql_crawl.cpp): the crawl_state row and the run record, the walks of the listing repeated
// until one stores no change, each walk's bounds (pagination cycles, --max-pages, WalkGuard), the
// choice of the issues of a page (pull requests, exclusions, --max-issues), the page stored in
// one transaction with its checkpoint, renames, the tally and the progress snapshots. A subclass
// says where a walk starts and fetches one page; both use the same GitHubApi, so one retry
// policy (counted, with jitter) covers GETs and POSTs alike.
//
// A position in the listing is a string: REST's the page URL, GraphQL's its encoded checkpoint.
// The position after a page is what crawl_state.next_url stores, so a killed crawl resumes there.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/db.h"
#include "core/issue_store.h"
#include "crawler/crawl_ledger.h"
#include "crawler/crawl_state.h"
#include "crawler/crawler.h"
#include "crawler/github_api.h"
#include "crawler/http_cache.h"

namespace convfail::crawler {

class Walk {
 public:
  // `conditional`: the API client sends validators from the HTTP cache (REST's GETs).
  Walk(Db& db, const CrawlOptions& options, const std::function<void(const std::string&)>& notice,
       const CrawlProgress& progress, const std::string& api_kind, bool conditional);
  virtual ~Walk() = default;
  Walk(const Walk&) = delete;
  Walk& operator=(const Walk&) = delete;

  // Runs the walks (recorded in crawl_state) and returns the summary.
  CrawlSummary run();

 protected:
  // Where walk number `walk` of this run starts. `resume`: the checkpoint of an interrupted walk
  // (walk 0 only; ignored when it is not one of this API's positions). `repeat`: the last walk
  // stored a new version of an issue this run had stored, so a page may have shifted under it.
  virtual std::string start(int walk, const std::optional<std::string>& resume, bool repeat) = 0;
  // Fetches the page at `at`, then calls listing() once with its issues and next position,
  // admit() for each issue and store() once. Returns true when --max-issues stopped the crawl.
  virtual bool page(const std::string& at, bool* changed, std::optional<std::string>* next) = 0;
  // "GET <url>" or "POST <endpoint> (...)": names a page in errors.
  virtual std::string where(const std::string& at) const = 0;

  // The bounds of a walk, checked when a listing page came (before anything of it is fetched
  // further or stored): the server keeps the walk going (WalkGuard), the next position is one
  // this walk fetched already (a cycle), or the walk passes --max-pages. `total`: the
  // listing's totalCount, when the server says it.
  void listing(const std::string& at, const std::vector<std::int64_t>& numbers,
               const std::optional<std::string>& next,
               std::optional<std::int64_t> total = std::nullopt);
  // Sorts an issue of a page: nullopt for a pull request or an issue with an excluded label
  // (counted), else the item, with details when it is new or changed. When it needs details and
  // --max-issues is reached, sets *stop and returns nullopt: the page is revisited next run.
  std::optional<FetchedIssue> admit(const Json& issue, std::int64_t number, bool* stop);
  // Stores a page's issues with the checkpoint `next` (the position to resume at) and the cache
  // rows, in one transaction; then counts the page and reports progress.
  void store(std::vector<FetchedIssue>& items, const std::string& served_by, bool* changed,
             const std::optional<std::string>& next, const std::vector<CacheEntry>& cache_rows);
  // The repository answered under a new name: store it so, and use it from now on.
  void renamed(const std::string& new_name, std::optional<std::int64_t> github_id);
  void report();

  Db& db_;
  const CrawlOptions& o_;
  std::string api_root_;   // the API URL without trailing slashes
  std::string repo_name_;  // the current name (after a rename)
  IssueStore store_;
  HttpCache cache_;
  GitHubApi api_;
  std::function<void(const std::string&)> notice_;
  CrawlSummary summary_;
  CrawlState state_;
  std::int64_t stored_ = 0;  // new or changed issues stored by this run (--max-issues)

 private:
  void walk_all();
  void tally();

  CrawlProgress progress_;
  CrawlLedger ledger_;
  WalkGuard guard_;                        // stops a walk that never ends
  std::set<std::string> walk_seen_;        // listing positions of the current walk
  std::set<std::int64_t> stored_numbers_;  // issues stored by this run
  bool shifted_ = false;                   // this walk re-stored one of them
};

}  // namespace convfail::crawler
