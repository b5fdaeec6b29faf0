// GitHub REST GETs with the crawler's manners: API headers, token, conditional requests from
// the HTTP cache, rate-limit budgeting (X-RateLimit-*, Retry-After, secondary limits), and
// bounded retries with exponential backoff and jitter for 5xx, timeouts, resets and bad bodies.
// A name that does not resolve or a refused connection before any answer fails at once.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/http.h"
#include "core/json_util.h"
#include "crawler/http_cache.h"

namespace convfail::crawler {

struct ApiOptions {
  // The API root (e.g. https://api.github.com). Requests, Link URLs and redirects must stay on
  // its origin (or one a redirect on the same host established); empty: the first URL
  // requested fixes the origin.
  std::string api_root;
  std::optional<std::string> token;  // sent as "Authorization: Bearer" to the API origin only;
                                     // never logged or stored
  // Parallel transfers in get_all(); 0: automatic (1 against api.github.com, as GitHub asks
  // for serial requests, else 4). The first secondary-rate-limit answer makes the rest of the
  // run serial whatever this says.
  int concurrency = 0;
  std::uint64_t max_response_bytes = 100ull << 20;  // per response, after decompression
  int rate_floor = 10;          // wait for the reset when the remaining budget reaches this
  double backoff_base_s = 1.0;  // first retry waits base * [0.5, 1); doubles per attempt. Also
                                // scales the waits GitHub leaves to the client: a rate limit
                                // without a reset time or a secondary limit without Retry-After
                                // waits 60 x base (GitHub's "at least a minute"), doubling
  double backoff_max_s = 60.0;
  int max_retries = 6;         // per URL, for faults; then the crawl stops with an error
  double max_wait_s = 3900.0;  // a longer rate-limit wait is an error instead
  long timeout_ms = 30000;
  bool conditional = true;  // send If-None-Match / If-Modified-Since from the cache
  // Bounds checked while a JSON answer is parsed, before it is built in memory: GitHub never
  // sends more than 100 items a page, so a REST page (a top-level array) with more, any nested
  // array with more than max_array_items, or more than max_json_values values in all is refused.
  std::size_t max_page_items = 100;
  std::size_t max_array_items = 10000;
  std::size_t max_json_values = 2000000;
};

// The server has no GraphQL endpoint (POST answered 404 or 501): not retried; `crawl --api
// auto` falls back to REST.
struct NoGraphQLEndpoint : UserError {
  using UserError::UserError;
};

// Parses a JSON answer within the bounds of `options` (see ApiOptions::max_page_items). Returns
// a discarded value for a body that is not JSON; throws UserError, naming `where`, for one over
// the bounds.
Json parse_bounded_json(const std::string& body, const ApiOptions& options, bool top_is_page,
                        const std::string& where);

struct ApiStats {
  std::int64_t requests = 0;
  std::int64_t not_modified = 0;
  std::int64_t retries = 0;
  std::int64_t rate_limit_waits = 0;
  double rate_limit_wait_s = 0;
  std::optional<std::int64_t> rate_remaining;  // last X-RateLimit-Remaining seen
};

// One fetched URL: its JSON, the next page, and the cache row to store with the data.
struct Fetched {
  std::string url;
  Json data;
  std::optional<std::string> next_url;
  bool not_modified = false;
  std::optional<CacheEntry> cache_update;    // set for a 200 that carried a validator
  std::optional<std::string> redirected_to;  // the URL that answered, when redirected
  long status = 200;
  // A shrinkable POST that GitHub answered with its timeout (502/504, an HTML page or GraphQL's
  // "Something went wrong"): the caller asks for less. `data` is then null.
  bool timed_out = false;
};

// The concurrency `options` asks for, with 0 resolved (see ApiOptions::concurrency).
int effective_concurrency(const ApiOptions& options);

class GitHubApi {
 public:
  // `cache` may be null (no conditional requests). `notice` receives one-line messages about
  // waits (how long and why); it never receives the token.
  GitHubApi(ApiOptions options, HttpCache* cache, std::function<void(const std::string&)> notice);

  Fetched get(const std::string& url);
  // Fetches all URLs, up to `concurrency` at once; results in the order of `urls`.
  std::vector<Fetched> get_all(const std::vector<std::string>& urls);
  // POSTs a JSON body (a GraphQL request) with the same manners and the same retry policy: no
  // conditional request, no redirect followed. An HTTP 200 whose "errors" say RATE_LIMITED or
  // RATE_LIMIT (code graphql_rate_limit) waits for the reset like a rate-limit 403; one whose
  // message says "secondary rate limit" waits like a secondary-limit 403. A timeout answer
  // (502/504, JSON or HTML) is returned with timed_out set when `shrinkable` (the caller asks
  // for less), else retried as a fault. 404 and 501 throw NoGraphQLEndpoint at once.
  // `what` names the request in errors ("POST URL (what): ...").
  Fetched post(const std::string& url, const std::string& body, bool shrinkable = false,
               const std::string& what = "");

  const ApiStats& stats() const { return stats_; }
  // A budget read from a response body (GraphQL's rateLimit{remaining resetAt}) when the
  // headers gave none: the next request waits for the reset at the floor, as with headers.
  void note_budget(std::int64_t remaining, std::int64_t reset_epoch);
  // Whether `url` is on the API origin (after any same-host redirect that moved it).
  bool on_api_origin(const std::string& url) const;
  // True once a secondary rate limit made the rest of the run serial.
  bool serial() const { return serial_; }
  // Called after every round of requests (for progress lines).
  std::function<void()> on_progress;

 private:
  struct Call;  // one fetch_all(): URLs, results, the round's faults and waits
  std::vector<Fetched> fetch_all(const std::vector<std::string>& urls,
                                 const std::optional<std::string>& post_body,
                                 bool shrinkable = false, const std::string& what = "");
  std::size_t round_size(std::size_t pending) const;
  void take(Call& call, std::size_t k, http::Response& r);
  void take_not_modified(Call& call, std::size_t k, const http::Response& r);
  void take_ok(Call& call, std::size_t k, const http::Response& r);
  void limit_wait(Call& call, std::size_t k, double wait, const std::string& why);
  void secondary(Call& call, std::size_t k, const http::Response& r,
                 std::optional<std::int64_t> retry_after, const std::string& msg);
  void until_reset(Call& call, std::size_t k, const std::string& what);
  void end_round(Call& call);
  http::Request make_request(const std::string& url, const std::optional<std::string>& body);
  void note_rate(const http::Response& r);
  void check_origin(const std::string& url, const std::string& what);
  void wait_for_budget();
  void sleep_for(double seconds, const std::string& why, bool rate_limit);

  ApiOptions opt_;
  HttpCache* cache_;
  std::function<void(const std::string&)> notice_;
  http::MultiClient multi_;
  ApiStats stats_;
  std::optional<std::int64_t> reset_epoch_;
  std::optional<std::int64_t> rate_limit_;  // X-RateLimit-Limit: the budget of a window
  std::mt19937 rng_;
  std::vector<std::string> origins_;  // the API origin(s) requests may go to
  bool serial_ = false;
  bool answered_ = false;  // a server gave an HTTP answer: faults reaching it are then retried
};

}  // namespace convfail::crawler
