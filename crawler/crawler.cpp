#include "crawler/crawler.h"

#include <algorithm>
#include <map>
#include <set>

#include <re2/re2.h>

#include "core/error.h"
#include "core/http.h"
#include "core/issue_store.h"
#include "core/text.h"
#include "crawler/crawl_state.h"
#include "crawler/graphql_crawl.h"
#include "crawler/walk.h"

namespace convfail::crawler {
namespace {

// The REST walk: the listing's pages (sort=updated, asc, following Link rel="next"), then the
// comments and timelines of new or changed issues in parallel. A position is a page URL.
class RestWalk : public Walk {
 public:
  RestWalk(Db& db, const CrawlOptions& o, const std::function<void(const std::string&)>& notice,
           const CrawlProgress& progress)
      : Walk(db, o, notice, progress, "rest", true) {}

 private:
  std::string repo_url() const { return api_root_ + "/repos/" + repo_name_; }
  std::string where(const std::string& at) const override { return "GET " + at; }

  // An issue updated while a walk runs moves to the end of the sort order, and every later
  // issue moves up by one: the first issue of the next page slips into a page already fetched.
  // When a walk stores a new version of an issue this run already stored (`repeat`), the walk
  // is repeated from the first walk's since= (pages are cheap; details are fetched only for
  // what is new).
  std::string start(int walk, const std::optional<std::string>& resume, bool repeat) override {
    if (resume && api_.on_api_origin(*resume)) {
      first_since_ = o_.since;  // resume an interrupted walk, whose since= is not known
      return *resume;
    }
    std::optional<std::string> since =
        repeat ? first_since_ : crawler::walk_since(o_, state_.max_updated_at);
    if (walk == 0) first_since_ = since;
    return list_url(since);
  }

  // The listing answered from another location: when the repository was renamed (GitHub's 301
  // to /repositories/<id>), store its new name and id and use the new location from now on.
  void follow_rename() {
    if (rename_checked_) return;
    rename_checked_ = true;
    Fetched repo = api_.get(repo_url());
    if (!repo.data.is_object()) return;
    std::optional<std::string> name = opt_string(repo.data, "full_name");
    static const RE2 valid(R"([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)");
    if (!name || !RE2::FullMatch(*name, valid) || *name == repo_name_) return;
    renamed(*name, opt_int(repo.data, "id"));
  }

  // Page bookkeeping of an issue's comment or timeline pages: a next page already fetched is a
  // cycle, and there are at most max_pages pages.
  void check_next(std::set<std::string>* seen, const std::string& url,
                  const std::optional<std::string>& next) {
    seen->insert(url);
    if (!next) return;
    if (seen->count(*next))
      throw UserError("GET " + url + ": Link rel=\"next\" points back to " + *next +
                      ", a page already fetched in this walk of an issue's comments or timeline "
                      "(pagination cycle); nothing of it was stored");
    if (static_cast<std::int64_t>(seen->size()) >= o_.max_pages)
      throw UserError("GET " + url + ": more than " + std::to_string(o_.max_pages) +
                      " pages of an issue's comments or timeline (--max-pages); stopping, "
                      "nothing of this page was stored");
  }

  std::string list_url(const std::optional<std::string>& since) const {
    std::string url = repo_url() + "/issues?state=" + url_encode(o_.state);
    if (!o_.labels.empty()) url += "&labels=" + url_encode(join(o_.labels, ","));
    std::int64_t per_page = 100;
    if (o_.max_issues > 0) per_page = std::min<std::int64_t>(per_page, o_.max_issues);
    url += "&per_page=" + std::to_string(per_page) + "&sort=updated&direction=asc";
    if (since) url += "&since=" + url_encode(*since);
    return url;
  }

  // Fetches every page of each URL; one JSON array per URL. Cache rows go to `cache_rows`.
  std::vector<Json> fetch_paginated(const std::vector<std::string>& urls,
                                    std::vector<CacheEntry>* cache_rows) {
    std::vector<Json> out(urls.size(), Json::array());
    std::vector<std::pair<std::size_t, std::string>> todo;
    std::vector<std::set<std::string>> seen(urls.size());
    for (std::size_t i = 0; i < urls.size(); ++i) todo.push_back({i, urls[i]});
    while (!todo.empty()) {
      std::vector<std::string> batch;
      for (auto& t : todo) batch.push_back(t.second);
      std::vector<Fetched> got = api_.get_all(batch);
      std::vector<std::pair<std::size_t, std::string>> next;
      for (std::size_t k = 0; k < got.size(); ++k) {
        Fetched& f = got[k];
        if (!f.data.is_array())
          throw UserError("GET " + f.url + ": expected a JSON array, got " + f.data.type_name());
        check_next(&seen[todo[k].first], todo[k].second, f.next_url);
        for (Json& e : f.data) out[todo[k].first].push_back(std::move(e));
        if (f.cache_update) cache_rows->push_back(std::move(*f.cache_update));
        if (f.next_url) next.push_back({todo[k].first, *f.next_url});
      }
      todo = std::move(next);
    }
    return out;
  }

  // One listing page: fetch, filter, fetch details, store all with the checkpoint.
  bool page(const std::string& url, bool* changed, std::optional<std::string>* next) override {
    Fetched got = api_.get(url);
    if (got.redirected_to) follow_rename();
    if (!got.data.is_array())
      throw UserError("GET " + url + ": expected a JSON array of issues, got " +
                      std::string(got.data.type_name()));
    *next = got.next_url;
    {
      std::vector<std::int64_t> numbers;
      for (const Json& issue : got.data)
        if (auto n = opt_int(issue, "number")) numbers.push_back(*n);
      listing(url, numbers, *next);
    }
    std::vector<CacheEntry> cache_rows;
    if (got.cache_update) cache_rows.push_back(*got.cache_update);

    bool stop = false;
    std::vector<FetchedIssue> items;
    for (const Json& issue : got.data) {
      if (!issue.is_object() || !opt_int(issue, "number"))
        throw UserError("GET " + url + ": an issue without a number");
      std::optional<FetchedIssue> it = admit(issue, *opt_int(issue, "number"), &stop);
      if (stop) {
        *next = url;  // revisit this page next run: what is stored by then is unchanged
        break;
      }
      if (it) items.push_back(std::move(*it));
    }

    // Comments (only when the issue says it has some) and timelines, in parallel.
    std::vector<std::string> urls;
    std::vector<std::pair<std::size_t, bool>> owner;  // item, is_comments
    for (std::size_t i = 0; i < items.size(); ++i) {
      FetchedIssue& it = items[i];
      if (!it.details) continue;
      std::string base = repo_url() + "/issues/" + std::to_string(it.number);
      if (o_.comments) {
        if (opt_int(it.issue, "comments").value_or(1) > 0) {
          urls.push_back(detail_url(it.issue, "comments_url", base + "/comments"));
          owner.push_back({i, true});
        } else {
          it.have_comments = true;  // known to be empty
        }
      }
      if (o_.timeline) {
        urls.push_back(detail_url(it.issue, "timeline_url", base + "/timeline"));
        owner.push_back({i, false});
      }
    }
    std::vector<Json> fetched = fetch_paginated(urls, &cache_rows);
    for (std::size_t k = 0; k < fetched.size(); ++k) {
      FetchedIssue& it = items[owner[k].first];
      if (owner[k].second) {
        it.comments = std::move(fetched[k]);
        it.have_comments = true;
      } else {
        it.timeline = std::move(fetched[k]);
        it.have_timeline = true;
      }
    }
    store(items, api_root_, changed, *next, cache_rows);
    return stop;
  }

  // An issue's comments or timeline URL: the one the issue object names (it must be on the API
  // origin, else the crawl stops), or the URL built from the repository when it names none.
  std::string detail_url(const Json& issue, const char* field, const std::string& fallback) {
    std::string u = opt_string(issue, field).value_or(fallback);
    if (!api_.on_api_origin(u))
      throw UserError("issue " + std::to_string(opt_int(issue, "number").value_or(0)) + ": " +
                      field + " " + u + " is not on the API origin " + api_root_ +
                      "; refusing to follow it");
    return u + (u.find('?') == std::string::npos ? "?" : "&") + "per_page=100";
  }

  std::optional<std::string> first_since_;  // the first walk's since=
  bool rename_checked_ = false;
};

void validate(const CrawlOptions& o) {
  static const RE2 repo(R"([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)");
  if (!RE2::FullMatch(o.repo, repo))
    throw UsageError("repository must be OWNER/NAME, got '" + o.repo + "'");
  if (o.state != "open" && o.state != "closed" && o.state != "all")
    throw UsageError("--state must be open, closed or all");
  if (o.since && !parse_iso8601(*o.since))
    throw UsageError("--since must be an ISO 8601 time such as 2023-01-31T00:00:00Z");
  if (o.api_url.rfind("http://", 0) != 0 && o.api_url.rfind("https://", 0) != 0)
    throw UsageError("--api-url must start with http:// or https://");
  if (o.api.concurrency < 0 || o.api.concurrency > 64)
    throw UsageError("--concurrency must be between 1 and 64");
  if (o.max_pages < 1) throw UsageError("--max-pages must be at least 1");
  if (o.overlap_s < 0) throw UsageError("--overlap must not be negative");
  if (o.api.max_retries < 0 || o.api.rate_floor < 0 || o.api.backoff_base_s < 0)
    throw UsageError("--max-retries, --rate-floor and --backoff-base must not be negative");
  if (o.api.max_response_bytes < 1) throw UsageError("--max-response-mb must be at least 1");
  if (o.max_issues < 0) throw UsageError("--max-issues must not be negative");
  if (o.graphql_page_size < 1 || o.graphql_page_size > 100)
    throw UsageError("--graphql-page-size must be between 1 and 100");
  resolve_api_kind(o);
}

}  // namespace

std::string crawl_filter_key(const CrawlOptions& o) {
  std::vector<std::string> labels = o.labels, excluded = o.exclude_labels;
  std::sort(labels.begin(), labels.end());
  std::sort(excluded.begin(), excluded.end());
  std::string key = "state=" + o.state + ";labels=" + join(labels, ",") +
                    ";exclude=" + join(excluded, ",") + ";comments=" + (o.comments ? "1" : "0") +
                    ";timeline=" + (o.timeline ? "1" : "0");
  if (o.since) key += ";since=" + *o.since;
  return key;
}

CrawlSummary crawl(Db& db, const CrawlOptions& options,
                   const std::function<void(const std::string&)>& notice,
                   const CrawlProgress& progress) {
  validate(options);
  if (resolve_api_kind(options) == "graphql") {
    try {
      return crawl_graphql(db, options, notice, progress);
    } catch (const NoGraphQLEndpoint& e) {
      if (options.api_kind != "auto") throw;
      // --api auto: a server without GraphQL (a proxy, an old GitHub Enterprise) is crawled
      // through REST, said in one line; the refused POST counts as a request.
      if (notice) notice(std::string(e.what()) + "; crawling through REST instead");
      RestWalk c(db, options, notice, progress);
      CrawlSummary s = c.run();
      s.api.requests += 1;
      return s;
    }
  }
  RestWalk c(db, options, notice, progress);
  return c.run();
}

std::optional<std::string> walk_since(const CrawlOptions& o,
                                      const std::optional<std::string>& max_updated_at) {
  std::optional<std::string> since = o.since;
  if (max_updated_at) {
    if (auto t = parse_iso8601(*max_updated_at)) {
      std::string s = format_iso8601(*t - o.overlap_s);
      if (!since || s > *since) since = s;
    }
  }
  return since;
}

std::string resolve_api_kind(const CrawlOptions& o) {
  if (o.api_kind == "rest") return "rest";
  if (o.api_kind == "graphql") {
    if (!o.api.token)
      throw UsageError(
          "--api graphql needs a token ($GITHUB_TOKEN or --token-file): GitHub's GraphQL API "
          "does not answer anonymous requests");
    return "graphql";
  }
  if (o.api_kind == "auto") return o.api.token ? "graphql" : "rest";
  throw UsageError("--api must be rest, graphql or auto, got '" + o.api_kind + "'");
}

std::vector<CrawlOptions> preset_crawls(const std::string& name, const CrawlOptions& base) {
  if (name != "jajal2024") throw UsageError("unknown preset '" + name + "' (known: jajal2024)");
  CrawlOptions torch = base, tf2onnx = base;
  torch.repo = "pytorch/pytorch";
  torch.state = "closed";
  torch.labels = {"module: onnx"};
  torch.exclude_labels.clear();
  tf2onnx.repo = "onnx/tensorflow-onnx";
  tf2onnx.state = "closed";
  tf2onnx.labels.clear();
  tf2onnx.exclude_labels = {"question", "pending on user response"};
  return {torch, tf2onnx};
}

}  // namespace convfail::crawler
