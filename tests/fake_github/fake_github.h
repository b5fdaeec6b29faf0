// A fake GitHub REST API for tests and benchmarks, on 127.0.0.1 only. It serves deterministic
// generated issues (pull requests mixed in), comments and timelines with GitHub's semantics:
// state/labels/since filters, sort=updated with direction, per_page/page with Link headers,
// ETags and 304 on If-None-Match (not counted against the budget), X-RateLimit-* headers with a
// per-window budget, and injected faults (500, 502, cut connections, truncated JSON, 403 with
// Retry-After) chosen by a seed. Faults never change the data: the same options always serve
// the same issues. change_issues() (or POST /_admin/change?issues=1,2) edits issues between runs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace convfail::fake {

struct FakeGitHubOptions {
  int issues = 200;         // issue and pull-request numbers 1..issues
  int latency_ms = 0;       // added to every request
  double fault_rate = 0;    // probability of a fault on a URL's first two requests
  std::uint64_t seed = 1;   // picks the faults (the data does not depend on it)
  int rate_limit = 0;       // full responses per window; 0: unlimited (reported as 5000)
  int rate_window_s = 60;   // windows are aligned to multiples of this many epoch seconds
  int retry_after_s = 1;    // Retry-After of injected secondary-rate-limit faults
  int port = 0;             // 0: a free port
  bool link_on_304 = true;  // false: 304s carry no Link header (GitHub does not promise one)

  // Real shapes (as recorded from api.github.com).
  std::string rename_from;       // "OLD/NAME": answered with 301 to /repositories/<id> of rename_to
  std::string rename_to;         // "NEW/NAME"
  bool old_format = false;       // pre-2014 dumps: plain issues carry {"html_url": null, ...}
  bool bare_rate_limit = false;  // rate-limit 403s without X-RateLimit-Reset or Retry-After

  // Hostile behaviour, on the issue listing unless said otherwise.
  std::string link_next_to;    // an origin: every listing page's Link next points there
  std::string redirect_to;     // an origin: the listing answers 302 to the same path there
  std::string self_link;       // "listing" or "comments": Link next points to the page itself
  int huge_body_mb = 0;        // the listing streams this many MB (no Content-Length)
  int gzip_bomb_mb = 0;        // the listing is a gzip body inflating to this many MB
  bool escape_error = false;   // the listing answers 400 with ESC/OSC sequences in the message
  std::string detail_urls_to;  // an origin: issues' comments_url and timeline_url point there
  int bad_title_issue = 0;     // this issue's title is served as a number (a schema violation)

  // POST /graphql (any non-empty token): the same issues, with GitHub's cost accounting (points
  // per window: rate_limit, 0 = 5000 and never exhausted), node limit and nested pagination.
  int graphql_timeout_above = 0;  // issues(first: N) with N above this answers GitHub's 502
                                  // "Something went wrong ... timeout" (0: never)
  int graphql_partial_issue = 0;  // this issue's timelineItems resolve to an error (partial data)
  std::string missing_repo;       // OWNER/NAME answered with NOT_FOUND (HTTP 200 + errors)

  // GitHub as it really answers (issue #32), modelled on public recordings:
  //   rate-limit     POSTs 2 and 3: HTTP 200 {"errors":[{"type":"RATE_LIMIT","code":
  //                  "graphql_rate_limit",...}]} with X-RateLimit-Remaining 0 (2026 spelling)
  //   rate-limited   the same with type RATE_LIMITED (until 2025)
  //   secondary      POST 2: HTTP 200 whose error says "secondary rate limit", POST 3: a 403
  //                  saying so; neither with Retry-After
  //   html-timeout   issue pages of more than 25 answer 502 or 504 with nginx's HTML page
  //   resource-limits issue pages of more than 25: partial data (every other node null) and
  //                  RESOURCE_LIMITS_EXCEEDED errors
  //   node-limit     issue pages of more than 25: MAX_NODE_LIMIT_EXCEEDED, no data
  //   no-endpoint-404, no-endpoint-501: POST /graphql is not there
  std::string graphql_shape;
  bool big_ids = false;        // issue and comment ids above 2^31 and above 2^53 (databaseId:
                               // a field error for those, as a conforming Int answers)
  bool deleted_users = false;  // some authors and actors are deleted: REST "ghost", GraphQL null
  bool endless_pages = false;  // the listing (REST and GraphQL) repeats its first page forever
                               // under fresh page numbers / cursors
  int empty_objects_mb = 0;    // the listing answers a page of this many MB of empty objects
  // Issue #41: issue deep_issue carries a value nested deep_levels arrays deep (2 bytes a
  // level: 100,000 levels are 200 KB). REST: its listing object's performed_via_github_app (an
  // object or null on GitHub); GraphQL: the previousTitle (a string on GitHub) of a
  // RenamedTitleEvent in its timeline items. Everything else is served as usual.
  int deep_issue = 0;
  int deep_levels = 100000;
};

struct LoggedRequest {
  std::string path;
  std::string query;          // decoded parameters, sorted, k=v joined by '&'
  int status;                 // 0 for a cut connection
  bool conditional;           // carried If-None-Match
  std::string authorization;  // the Authorization header as received (tests check the token)
};

// The repository id the fake server gives `full_name` (the id of /repositories/<id>).
std::int64_t fake_repository_id(const std::string& full_name);

class FakeGitHub {
 public:
  explicit FakeGitHub(FakeGitHubOptions options);  // listening when it returns
  ~FakeGitHub();
  FakeGitHub(const FakeGitHub&) = delete;
  FakeGitHub& operator=(const FakeGitHub&) = delete;

  int port() const;
  std::string url() const;  // http://127.0.0.1:PORT
  void stop();

  // Edits the given issues: a newer updated_at (later than every other issue), a body
  // revision, one more comment and one more timeline event.
  void change_issues(const std::vector<int>& numbers);

  std::vector<LoggedRequest> log() const;
  void clear_log();

  // Ground truth for tests, computed from the generator's choices.
  bool is_pull_request(int number) const;
  bool expected_fix_link(int number) const;
  bool is_closed(int number) const;
  std::vector<std::string> labels(int number) const;
  int comment_count(int number) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace convfail::fake
