#include "crawler/github_api.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "core/error.h"
#include "core/issue_schema.h"
#include "core/text.h"
#include "crawler/link_header.h"

namespace convfail::crawler {
namespace {

double now_epoch() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

// What a body that is not GitHub's JSON is, in a few words (its text is never shown).
std::string describe_body(const http::Response& r) {
  std::string head = lower(r.body.substr(0, 512));
  std::string type = lower(r.header("content-type").value_or(""));
  if (r.body.empty()) return "an empty body";
  if (type.find("html") != std::string::npos || head.find("<html") != std::string::npos ||
      head.find("<!doctype") != std::string::npos)
    return "an HTML page of " + std::to_string(r.body.size()) + " bytes, not JSON";
  return "a body of " + std::to_string(r.body.size()) + " bytes that is not GitHub's JSON";
}

std::optional<std::int64_t> header_int(const http::Response& r, const char* name) {
  auto v = r.header(name);
  if (!v) return std::nullopt;
  try {
    std::size_t used = 0;
    long long n = std::stoll(*v, &used);
    if (used == 0) return std::nullopt;
    return static_cast<std::int64_t>(n);
  } catch (...) {
    return std::nullopt;
  }
}

std::string fmt_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

// GitHub's error bodies carry {"message": ...}; anything else (a proxy's HTML page) is named,
// never shown. Not escaped here: main() escapes every error message once, and notices are
// escaped where they are printed.
std::string error_message(const http::Response& r) {
  Json j = Json::parse(r.body, nullptr, false);
  if (j.is_object())
    if (auto m = opt_string(j, "message")) return m->substr(0, 300);
  return describe_body(r);
}

// "GET <url>" for messages; URLs come from the server (Link headers, issue objects).
std::string get_of(const std::string& url, bool post = false) {
  return (post ? "POST " : "GET ") + url;
}

std::string host_of(const std::string& origin) {  // "scheme://host:port" -> "host"
  std::size_t a = origin.find("://");
  std::size_t b = origin.rfind(':');
  return a == std::string::npos || b <= a ? origin : origin.substr(a + 3, b - a - 3);
}

// Whether a GraphQL answer is GitHub's rate-limit error (HTTP 200): errors[].type RATE_LIMITED
// (until 2025), or RATE_LIMIT with code graphql_rate_limit (2026).
bool graphql_rate_limited(const Json& data) {
  if (!data.is_object()) return false;
  auto e = data.find("errors");
  if (e == data.end() || !e->is_array()) return false;
  for (const Json& x : *e) {
    if (!x.is_object()) continue;
    std::string type = opt_string(x, "type").value_or("");
    if (type == "RATE_LIMITED" || type == "RATE_LIMIT" ||
        opt_string(x, "code").value_or("") == "graphql_rate_limit")
      return true;
  }
  return false;
}

const Json& at_errors0(const Json& data) {
  static const Json empty = Json::object();
  auto e = data.find("errors");
  if (e == data.end() || !e->is_array() || e->empty() || !(*e)[0].is_object()) return empty;
  return (*e)[0];
}

bool says_secondary(const std::string& message) {
  return lower(message).find("secondary rate limit") != std::string::npos;
}

// A GraphQL answer (HTTP 200) whose errors say "secondary rate limit": its message, else nullopt.
std::optional<std::string> graphql_secondary_limit(const Json& data) {
  if (!data.is_object()) return std::nullopt;
  auto e = data.find("errors");
  if (e == data.end() || !e->is_array()) return std::nullopt;
  for (const Json& x : *e)
    if (x.is_object())
      if (auto m = opt_string(x, "message"); m && says_secondary(*m)) return m->substr(0, 200);
  return std::nullopt;
}

// GitHub's answer to a GraphQL query that ran out of its 10 seconds: 502 or 504, with an HTML
// page from the proxy or JSON {"data": null, "errors": [{"message": "Something went wrong ...
// timeout ..."}]}.
bool graphql_timeout_answer(const http::Response& r) {
  if (r.status != 502 && r.status != 504) return false;
  Json j = Json::parse(r.body, nullptr, false);
  if (!j.is_object()) return true;  // the proxy's HTML page
  auto e = j.find("errors");
  if (e == j.end() || !e->is_array()) return false;
  for (const Json& x : *e) {
    std::string m = lower(x.is_object() ? opt_string(x, "message").value_or("") : "");
    if (m.find("something went wrong") != std::string::npos ||
        m.find("timeout") != std::string::npos || m.find("timed out") != std::string::npos)
      return true;
  }
  return false;
}

}  // namespace

Json parse_bounded_json(const std::string& body, const ApiOptions& o, bool top_is_page,
                        const std::string& where) {
  // Nesting first, with import's limit and scan: the store dumps what it keeps, and nlohmann's
  // dump() recurses once per level (100,000 levels overflow the stack).
  if (json_nesting_depth(body) > kMaxJsonDepth)
    throw UserError(where + ": the answer holds JSON nested deeper than " +
                    std::to_string(kMaxJsonDepth) + " levels; refusing it");
  // One pass: the parser's callback counts values and array items as they arrive and stops the
  // parse at the first bound crossed, before the rest is built in memory.
  struct Over {
    std::string why;
  };
  std::vector<std::pair<bool, std::size_t>> stack;  // per open container: is array, items
  std::size_t values = 0;
  using E = Json::parse_event_t;
  auto cb = [&](int, E e, Json&) -> bool {
    if (e == E::object_end || e == E::array_end) {
      if (!stack.empty()) stack.pop_back();
      return true;
    }
    if (e == E::key) return true;
    if (++values > o.max_json_values)
      throw Over{"more than " + std::to_string(o.max_json_values) + " JSON values"};
    if (!stack.empty() && stack.back().first) {
      std::size_t limit = stack.size() == 1 && top_is_page ? o.max_page_items : o.max_array_items;
      if (++stack.back().second > limit)
        throw Over{stack.size() == 1 && top_is_page
                       ? "more than " + std::to_string(limit) +
                             " items in one page (GitHub sends at most 100)"
                       : "an array of more than " + std::to_string(limit) + " items"};
    }
    if (e == E::object_start) stack.push_back({false, 0});
    if (e == E::array_start) stack.push_back({true, 0});
    return true;
  };
  try {
    return Json::parse(body, cb, false);
  } catch (const Over& over) {
    throw UserError(where + ": the answer holds " + over.why + "; refusing it");
  }
}

GitHubApi::GitHubApi(ApiOptions options, HttpCache* cache,
                     std::function<void(const std::string&)> notice)
    : opt_(std::move(options)),
      cache_(cache),
      notice_(std::move(notice)),
      multi_(effective_concurrency(opt_)),
      rng_(std::random_device{}()) {
  opt_.concurrency = effective_concurrency(opt_);
  if (!opt_.api_root.empty()) {
    auto o = http::origin_of(opt_.api_root);
    if (!o) throw UsageError("the API URL must be an http:// or https:// URL");
    origins_.push_back(*o);
  }
}

int effective_concurrency(const ApiOptions& options) {
  if (options.concurrency > 0) return options.concurrency;
  auto origin = http::origin_of(options.api_root);
  return origin && host_of(*origin) == "api.github.com" ? 1 : 4;
}

bool GitHubApi::on_api_origin(const std::string& url) const {
  auto o = http::origin_of(url);
  return o && std::find(origins_.begin(), origins_.end(), *o) != origins_.end();
}

void GitHubApi::check_origin(const std::string& url, const std::string& what) {
  if (origins_.empty()) {  // no API root given: the first URL fixes it
    if (auto o = http::origin_of(url)) origins_.push_back(*o);
  }
  if (on_api_origin(url)) return;
  throw UserError(what + " " + url + " is not on the API origin " +
                  (origins_.empty() ? std::string("?") : origins_.front()) +
                  "; refusing to follow it (the token and the database stay with the API)");
}

http::Request GitHubApi::make_request(const std::string& url,
                                      const std::optional<std::string>& body) {
  check_origin(url, "URL");
  http::Request req;
  req.url = url;
  req.timeout_ms = opt_.timeout_ms;
  req.max_body_bytes = opt_.max_response_bytes;
  req.headers = {{"Accept", "application/vnd.github+json"},
                 {"X-GitHub-Api-Version", "2022-11-28"},
                 {"User-Agent", std::string("convfail/") + CONVFAIL_VERSION}};
  if (opt_.token) req.headers.push_back({"Authorization", "Bearer " + *opt_.token});
  if (body) {
    req.post_body = body;
    req.headers.push_back({"Content-Type", "application/json"});
    return req;
  }
  if (opt_.conditional && cache_) {
    if (auto c = cache_->get(url)) {
      if (c->etag) req.headers.push_back({"If-None-Match", *c->etag});
      if (c->last_modified) req.headers.push_back({"If-Modified-Since", *c->last_modified});
    }
  }
  return req;
}

void GitHubApi::note_rate(const http::Response& r) {
  auto remaining = header_int(r, "x-ratelimit-remaining");
  auto reset = header_int(r, "x-ratelimit-reset");
  if (auto limit = header_int(r, "x-ratelimit-limit")) rate_limit_ = limit;
  if (!remaining) return;
  // Responses of one round arrive out of order: within a window keep the lowest budget.
  if (reset && reset_epoch_ && *reset == *reset_epoch_ && stats_.rate_remaining)
    stats_.rate_remaining = std::min(*stats_.rate_remaining, *remaining);
  else
    stats_.rate_remaining = remaining;
  if (reset) reset_epoch_ = reset;
}

void GitHubApi::note_budget(std::int64_t remaining, std::int64_t reset_epoch) {
  if (stats_.rate_remaining && reset_epoch_) return;  // the headers said it already
  stats_.rate_remaining = remaining;
  reset_epoch_ = reset_epoch;
}

void GitHubApi::sleep_for(double seconds, const std::string& why, bool rate_limit) {
  if (seconds <= 0) return;
  if (seconds > opt_.max_wait_s)
    throw UserError(why + ": the wait of " + fmt_seconds(seconds) + " is longer than allowed (" +
                    fmt_seconds(opt_.max_wait_s) + ")");
  if (notice_) notice_("waiting " + fmt_seconds(seconds) + ": " + why);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  if (rate_limit) {
    stats_.rate_limit_wait_s += seconds;
    ++stats_.rate_limit_waits;
  }
}

void GitHubApi::wait_for_budget() {
  if (!stats_.rate_remaining || *stats_.rate_remaining > opt_.rate_floor || !reset_epoch_) return;
  double wait = static_cast<double>(*reset_epoch_) - now_epoch() + 0.05;
  std::int64_t left = *stats_.rate_remaining;
  if (wait > 0)
    sleep_for(wait,
              "rate limit budget at " + std::to_string(left) + " request(s) (floor " +
                  std::to_string(opt_.rate_floor) + "), until the reset",
              true);
  // A new window: the full budget, when the server told us its size.
  stats_.rate_remaining = rate_limit_;
}

Fetched GitHubApi::get(const std::string& url) {
  return std::move(get_all({url})[0]);
}

std::vector<Fetched> GitHubApi::get_all(const std::vector<std::string>& urls) {
  return fetch_all(urls, std::nullopt);
}

Fetched GitHubApi::post(const std::string& url, const std::string& body, bool shrinkable,
                        const std::string& what) {
  return std::move(fetch_all({url}, body, shrinkable, what)[0]);
}

// One fetch_all(): its URLs, what came back, the URLs still to ask for, and the current round's
// faults and waits.
struct GitHubApi::Call {
  // Attempt state of one URL.
  struct Slot {
    std::size_t index;
    int attempts = 0;     // failed attempts counted against max_retries
    int limit_waits = 0;  // rate-limit answers, bounded separately
    std::string last_error;
  };
  const std::vector<std::string>& urls;
  const std::optional<std::string>& post_body;
  bool shrinkable;
  std::string what;  // POST: what it asks for, named in errors
  std::vector<std::optional<Fetched>> done;
  std::vector<Slot> pending;
  // The current round.
  std::vector<Slot> round;
  std::vector<Slot> retry;  // faults: count an attempt, back off
  double told_wait = 0;     // Retry-After or rate-limit reset: wait as told
  std::string told_why;

  bool posting() const { return post_body.has_value(); }
  // "GET <url>" or "POST <url> (what)": names the request in errors.
  std::string where(std::size_t k) const {
    std::string w = get_of(urls[round[k].index], posting());
    return what.empty() ? w : w + " (" + what + ")";
  }
  void fault(std::size_t k, const std::string& why) {
    round[k].last_error = why;
    ++round[k].attempts;
    retry.push_back(round[k]);
  }
};

std::vector<Fetched> GitHubApi::fetch_all(const std::vector<std::string>& urls,
                                          const std::optional<std::string>& post_body,
                                          bool shrinkable, const std::string& what) {
  Call call{urls, post_body, shrinkable, what, {}, {}, {}, {}, 0, {}};
  call.done.resize(urls.size());
  for (std::size_t i = 0; i < urls.size(); ++i) call.pending.push_back(Call::Slot{i, 0, 0, {}});
  while (!call.pending.empty()) {
    wait_for_budget();
    std::size_t n = round_size(call.pending.size());
    call.round.assign(call.pending.begin(), call.pending.begin() + static_cast<std::ptrdiff_t>(n));
    call.pending.erase(call.pending.begin(), call.pending.begin() + static_cast<std::ptrdiff_t>(n));
    call.retry.clear();
    call.told_wait = 0;
    call.told_why.clear();

    std::vector<http::Request> requests;
    for (const Call::Slot& s : call.round)
      requests.push_back(make_request(urls[s.index], post_body));
    std::vector<http::Response> responses = multi_.perform_all(requests);
    for (std::size_t k = 0; k < call.round.size(); ++k) take(call, k, responses[k]);
    end_round(call);
    if (on_progress) on_progress();
  }
  std::vector<Fetched> out;
  out.reserve(call.done.size());
  for (auto& f : call.done) out.push_back(std::move(*f));
  return out;
}

// How many requests the next round may send: never more than the budget above the floor
// allows; with an unknown budget a small probe. Big rounds keep all connections busy (a round
// ends waiting for its slowest transfer).
std::size_t GitHubApi::round_size(std::size_t pending) const {
  std::size_t allowance =
      static_cast<std::size_t>((stats_.rate_remaining ? 256 : 1) * std::max(1, opt_.concurrency));
  if (stats_.rate_remaining)
    allowance = std::min<std::size_t>(allowance, static_cast<std::size_t>(std::max<std::int64_t>(
                                                     1, *stats_.rate_remaining - opt_.rate_floor)));
  if (serial_) allowance = 1;
  return std::min(allowance, pending);
}

// One response of a round: stored in call.done, or queued again (a fault, a rate limit), or an
// error thrown.
void GitHubApi::take(Call& call, std::size_t k, http::Response& r) {
  const std::string& url = call.urls[call.round[k].index];
  ++stats_.requests;
  stats_.requests += r.redirects;  // each redirect was a request, and cost budget
  note_rate(r);
  if (r.status != 0) answered_ = true;
  if (!r.transport_ok()) {
    if (r.failure == http::Failure::kTooLarge)
      throw UserError(call.where(k) + ": the response is larger than the cap of " +
                      std::to_string(opt_.max_response_bytes >> 20) + " MB (--max-response-mb)");
    if (!http::should_retry(r)) throw UserError(call.where(k) + ": " + r.error);
    // No server has answered this client yet: an offline machine or a wrong API URL, which
    // back-off would only take a minute to report. A host that answered before is retried.
    if (http::never_connected(r) && !answered_)
      throw UserError(call.where(k) + ": " + r.error +
                      " (the API has not answered: offline, or a wrong --api-url; not retried)");
  }
  if (r.redirects > 0 && !on_api_origin(r.effective_url)) {
    // A redirect may move the API from http to https on the same host; any other origin is
    // refused (libcurl sent it no Authorization header).
    auto to = http::origin_of(r.effective_url);
    if (to && !origins_.empty() && starts_with(*to, "https://") &&
        host_of(*to) == host_of(origins_.front()))
      origins_.push_back(*to);
    else
      throw UserError(call.where(k) + ": redirected to " + r.effective_url +
                      ", which is not on the API origin; refusing its answer");
  }
  if (!r.transport_ok()) return call.fault(k, r.error);
  if (r.status == 304) return take_not_modified(call, k, r);
  if (r.status == 200) return take_ok(call, k, r);
  if (r.status == 403 || r.status == 429) {
    auto retry_after = header_int(r, "retry-after");
    auto remaining = header_int(r, "x-ratelimit-remaining");
    std::string msg = error_message(r);
    if (says_secondary(msg) || retry_after) return secondary(call, k, r, retry_after, msg);
    if ((remaining && *remaining == 0) || r.status == 429)
      return until_reset(call, k, "rate limit exhausted (HTTP " + std::to_string(r.status) + ")");
    throw UserError(call.where(k) + ": HTTP " + std::to_string(r.status) + ": " + msg);
  }
  if (call.posting() && (r.status == 404 || r.status == 501))
    throw NoGraphQLEndpoint(call.where(k) + ": HTTP " + std::to_string(r.status) +
                            ": the server has no GraphQL endpoint (" + error_message(r) +
                            "; --api rest crawls without it)");
  if (call.posting() && graphql_timeout_answer(r)) {  // GitHub's timeout: ask for less, or retry
    if (!call.shrinkable)
      return call.fault(k,
                        "HTTP " + std::to_string(r.status) + ", GitHub's GraphQL timeout answer");
    Fetched f{url, Json(), std::nullopt, false, std::nullopt, std::nullopt};
    f.status = r.status;
    f.timed_out = true;
    call.done[call.round[k].index] = std::move(f);
    return;
  }
  if (http::should_retry(r))  // 5xx but 501 (429 was a rate limit above)
    return call.fault(k, "HTTP " + std::to_string(r.status));
  if (r.status == 401)
    throw UserError(call.where(k) + ": HTTP 401: bad credentials (check the token)");
  if (r.status == 404)
    throw UserError(call.where(k) + ": HTTP 404: not found (repository name, or access?)");
  throw UserError(call.where(k) + ": HTTP " + std::to_string(r.status) + ": " + error_message(r));
}

// A 304: the cached copy, with its next page (GitHub may omit Link on a 304).
void GitHubApi::take_not_modified(Call& call, std::size_t k, const http::Response& r) {
  const std::string& url = call.urls[call.round[k].index];
  std::optional<CacheEntry> c = cache_ ? cache_->get(url) : std::nullopt;
  if (!c) throw UserError(call.where(k) + ": 304 Not Modified without a cached copy");
  Fetched f{url,          parse_bounded_json(c->body, opt_, true, "cached body of " + url),
            std::nullopt, true,
            std::nullopt, std::nullopt};
  if (f.data.is_discarded()) throw UserError("cached body of " + url + " is not JSON");
  if (auto link = r.header("link"))
    f.next_url = link_with_rel(*link, "next");
  else
    f.next_url = c->next_url;
  if (f.next_url) check_origin(*f.next_url, call.where(k) + ": Link rel=\"next\"");
  ++stats_.not_modified;
  call.done[call.round[k].index] = std::move(f);
}

// A 200: its JSON within the bounds, or GraphQL's rate-limit answers given with HTTP 200.
void GitHubApi::take_ok(Call& call, std::size_t k, const http::Response& r) {
  const std::string& url = call.urls[call.round[k].index];
  Json data = parse_bounded_json(r.body, opt_, !call.posting(), call.where(k));
  if (data.is_discarded()) return call.fault(k, "truncated or unparsable JSON body");
  if (call.posting() && graphql_rate_limited(data)) {  // RATE_LIMITED / RATE_LIMIT, HTTP 200
    std::string type = opt_string(at_errors0(data), "type").value_or("RATE_LIMITED");
    return until_reset(call, k, "GraphQL " + type + " (HTTP 200)");
  }
  if (call.posting())
    if (auto msg = graphql_secondary_limit(data))  // a secondary limit with HTTP 200
      return secondary(call, k, r, header_int(r, "retry-after"), *msg);
  Fetched f{url, std::move(data), std::nullopt, false, std::nullopt, std::nullopt};
  if (!call.posting()) {
    if (r.redirects > 0) f.redirected_to = r.effective_url;
    if (auto link = r.header("link")) f.next_url = link_with_rel(*link, "next");
    if (f.next_url) check_origin(*f.next_url, call.where(k) + ": Link rel=\"next\"");
    auto etag = r.header("etag");
    auto last_modified = r.header("last-modified");
    if (cache_ && (etag || last_modified))
      f.cache_update = CacheEntry{url, etag, last_modified, r.body, f.next_url};
  }
  call.done[call.round[k].index] = std::move(f);
}

// A rate-limit answer: wait as told (the longest wait of the round), then ask again.
void GitHubApi::limit_wait(Call& call, std::size_t k, double wait, const std::string& why) {
  if (++call.round[k].limit_waits > 50)
    throw UserError(call.where(k) + ": still rate limited after 50 waits");
  if (wait >= call.told_wait) {
    call.told_wait = std::max(0.0, wait);
    call.told_why = why;
  }
  call.pending.push_back(call.round[k]);
}

// GitHub's rule for secondary limits: Retry-After when given, else at least a minute, doubling
// while they last; and serial requests from now on.
void GitHubApi::secondary(Call& call, std::size_t k, const http::Response& r,
                          std::optional<std::int64_t> retry_after, const std::string& msg) {
  if (!serial_) {
    serial_ = true;
    if (notice_ && opt_.concurrency > 1)
      notice_("secondary rate limit: one request at a time for the rest of the run");
  }
  std::string status = "HTTP " + std::to_string(r.status);
  if (retry_after)
    return limit_wait(
        call, k, static_cast<double>(*retry_after),
        status + " with Retry-After " + std::to_string(*retry_after) + " (secondary rate limit)");
  limit_wait(call, k,
             std::min(opt_.backoff_max_s * 60,
                      opt_.backoff_base_s * 30 * std::pow(2, call.round[k].limit_waits + 1)),
             status + ": " + msg.substr(0, 80) + " (no Retry-After), backing off");
}

// Until the reset (X-RateLimit-Reset, else the last rateLimit.resetAt); without one, or a stale
// one, a minute (60 x --backoff-base), doubling.
void GitHubApi::until_reset(Call& call, std::size_t k, const std::string& what) {
  double wait = reset_epoch_ ? static_cast<double>(*reset_epoch_) - now_epoch() + 0.05 : 0;
  if (wait > 0) return limit_wait(call, k, wait, what + ", until the reset");
  limit_wait(call, k,
             std::min(opt_.backoff_max_s * 60,
                      opt_.backoff_base_s * 30 * std::pow(2, call.round[k].limit_waits + 1)),
             what + " (no reset time), backing off");
}

// After a round: faults back off (counted, with jitter) and are queued again; a told wait is
// waited.
void GitHubApi::end_round(Call& call) {
  if (!call.retry.empty()) {
    http::RetryPolicy policy{opt_.max_retries, opt_.backoff_base_s, opt_.backoff_max_s};
    int worst = 0;
    for (Call::Slot& s : call.retry) {
      if (policy.gives_up_after(s.attempts)) {
        std::string w = get_of(call.urls[s.index], call.posting());
        if (!call.what.empty()) w += " (" + call.what + ")";
        throw UserError(w + " failed " + std::to_string(s.attempts) +
                        " times, last: " + s.last_error);
      }
      worst = std::max(worst, s.attempts);
      ++stats_.retries;
    }
    double backoff = http::backoff_delay(policy, worst, rng_);
    if (backoff > 0 && call.told_wait <= 0) {
      if (notice_ && backoff >= 1.0)
        notice_("retrying " + std::to_string(call.retry.size()) + " request(s) in " +
                fmt_seconds(backoff) + " (" + call.retry.front().last_error + ")");
      std::this_thread::sleep_for(std::chrono::duration<double>(backoff));
    }
    for (Call::Slot& s : call.retry) call.pending.push_back(s);
  }
  if (call.told_wait > 0) {
    sleep_for(call.told_wait, call.told_why, true);
    stats_.rate_remaining.reset();  // unknown: the next round probes with few requests
  }
}

}  // namespace convfail::crawler
