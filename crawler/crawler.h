// The crawl: list a repository's issues (sort=updated, asc, following Link rel="next"), fetch
// comments and timelines of new or changed issues in parallel, and store each listing page in
// one transaction with its checkpoint, so that a killed crawl resumes without loss or duplicates.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"
#include "crawler/github_api.h"

namespace convfail::crawler {

struct CrawlOptions {
  std::string repo;                         // owner/name
  std::vector<std::string> labels;          // server-side: issues carrying all of them
  std::vector<std::string> exclude_labels;  // client-side: issues carrying none of them
  std::string state = "closed";             // closed | open | all
  std::optional<std::string> since;         // ISO 8601; lower bound for the first run
  bool comments = true;
  bool timeline = true;
  std::string api_url = "https://api.github.com";
  std::int64_t max_issues = 0;  // stop after this many new or changed issues (0: no limit);
                                // the next run resumes
  int overlap_s = 60;           // incremental runs ask since=(largest updated_at - overlap)
  int max_walks = 4;            // listing passes per run until one sees no change
  int max_pages = 10000;        // pages per walk of one listing, comment or timeline list;
                                // more is an error (a server that never ends)
  // rest | graphql | auto (GraphQL when a token is given, since GitHub's GraphQL API needs one;
  // REST otherwise).
  std::string api_kind = "auto";
  int graphql_page_size = 100;  // issues per GraphQL request (halved when GitHub times out)
  ApiOptions api;
};

// Counts are of distinct issues: a run lists the repository more than once (a first run walks
// again with since=), and an issue counts once, by its most telling outcome.
struct CrawlSummary {
  std::string repo;  // the name crawled (the new one when the repository was renamed)
  std::int64_t pages = 0;
  std::int64_t issues_seen = 0;
  std::int64_t new_issues = 0;
  std::int64_t updated_issues = 0;
  std::int64_t unchanged_issues = 0;
  std::int64_t pull_requests_skipped = 0;
  std::int64_t excluded = 0;
  std::int64_t comment_sets_changed = 0;
  std::int64_t timelines_changed = 0;
  bool complete = false;          // false: stopped at --max-issues; the next run resumes
  ApiStats api;                   // requests, 304s, retries, waits
  std::string api_kind = "rest";  // the API the crawl used: rest | graphql
  std::int64_t points_used = 0;   // GraphQL: the sum of rateLimit.cost
  std::optional<std::int64_t> points_remaining;  // GraphQL: the last rateLimit.remaining
};

// Progress snapshots for a progress line; called after every request round.
using CrawlProgress = std::function<void(const CrawlSummary&)>;

// The canonical filter text that keys crawl_state (state, labels, exclusions, switches).
std::string crawl_filter_key(const CrawlOptions& options);

// Runs one crawl. Throws UserError on bad options or when the server keeps failing (the state
// then lets the next run resume). `notice` gets one-line messages (waits); `progress` snapshots.
CrawlSummary crawl(Db& db, const CrawlOptions& options,
                   const std::function<void(const std::string&)>& notice = {},
                   const CrawlProgress& progress = {});

// The lower bound of a fresh walk of the listing: the largest stored updated_at minus the
// overlap, never before the user's --since (REST's since=, GraphQL's filterBy.since).
std::optional<std::string> walk_since(const CrawlOptions& options,
                                      const std::optional<std::string>& max_updated_at);

// The API a crawl with these options uses ("rest" or "graphql"); UsageError for --api graphql
// without a token or an unknown name.
std::string resolve_api_kind(const CrawlOptions& options);

// The crawls of a named preset ("jajal2024": what the study crawled), with `base` supplying the
// API, token and tuning. Throws UsageError for an unknown preset.
std::vector<CrawlOptions> preset_crawls(const std::string& name, const CrawlOptions& base);

}  // namespace convfail::crawler
