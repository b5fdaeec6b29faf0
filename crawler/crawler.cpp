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
#include "crawler/http_cache.h"

namespace convfail::crawler {
namespace {

class Crawl {
 public:
  Crawl(Db& db, const CrawlOptions& o, const std::function<void(const std::string&)>& notice,
        const CrawlProgress& progress)
      : db_(db), o_(o), store_(db), cache_(db), api_(o.api, &cache_, notice), progress_(progress) {
    api_.on_progress = [this] { report(); };
    summary_.repo = o.repo;
    while (!api_root_.empty() && api_root_.back() == '/') api_root_.pop_back();
  }

  CrawlSummary run() {
    std::int64_t repo_id = store_.repository_id(o_.repo);
    state_ = load_crawl_state(db_, repo_id, crawl_filter_key(o_));
    mark_run_started(db_, state_.id);
    try {
      walk_all();
    } catch (const std::exception& e) {
      mark_run_failed(db_, state_.id, e.what());
      throw;
    }
    mark_run_finished(db_, state_.id, summary_.complete);
    summary_.api = api_.stats();
    return summary_;
  }

 private:
  std::string repo_url() const { return api_root_ + "/repos/" + o_.repo; }

  std::string list_url(const std::optional<std::string>& since) const {
    std::string url = repo_url() + "/issues?state=" + url_encode(o_.state);
    if (!o_.labels.empty()) url += "&labels=" + url_encode(join(o_.labels, ","));
    std::int64_t per_page = 100;
    if (o_.max_issues > 0) per_page = std::min<std::int64_t>(per_page, o_.max_issues);
    url += "&per_page=" + std::to_string(per_page) + "&sort=updated&direction=asc";
    if (since) url += "&since=" + url_encode(*since);
    return url;
  }

  // The since= of a fresh walk: the largest stored updated_at minus the overlap, never before
  // the user's --since.
  std::optional<std::string> walk_since() const {
    std::optional<std::string> since = o_.since;
    if (state_.max_updated_at) {
      if (auto t = parse_iso8601(*state_.max_updated_at)) {
        std::string s = format_iso8601(*t - o_.overlap_s);
        if (!since || s > *since) since = s;
      }
    }
    return since;
  }

  // Walks the listing until a walk stores no change (so issues updated during the crawl are
  // caught, and the last walk's URL is cached for the next run's conditional request).
  //
  // An issue updated while a walk runs moves to the end of the sort order, and every later issue
  // moves up by one: the first issue of the next page slips into a page already fetched. When a
  // walk stores a new version of an issue this run already stored, the walk is repeated from
  // the first walk's since= (pages are cheap; details are fetched only for what is new).
  void walk_all() {
    std::optional<std::string> first_since;
    bool repeat = false;
    for (int walk = 0; walk < std::max(1, o_.max_walks); ++walk) {
      std::string url;
      if (state_.next_url && state_.next_url->rfind(api_root_ + "/", 0) == 0) {
        url = *state_.next_url;  // resume an interrupted walk, whose since= is not known
        if (walk == 0) first_since = o_.since;
      } else {
        std::optional<std::string> since = repeat ? first_since : walk_since();
        if (walk == 0) first_since = since;
        url = list_url(since);
      }
      bool changed = false;
      shifted_ = false;
      while (!url.empty()) {
        std::optional<std::string> next;
        bool stop = page(url, &changed, &next);
        if (stop) return;  // --max-issues reached; the checkpoint resumes here
        url = next.value_or("");
      }
      if (!changed) break;
      repeat = shifted_;
    }
    summary_.complete = true;
  }

  struct Item {
    Json issue;
    std::int64_t number;
    bool details = false;  // new or changed: fetch comments and timeline
    Json comments = Json::array();
    Json timeline = Json::array();
    bool have_comments = false, have_timeline = false;
  };

  // Fetches every page of each URL; one JSON array per URL. Cache rows go to `cache_rows`.
  std::vector<Json> fetch_paginated(const std::vector<std::string>& urls,
                                    std::vector<CacheEntry>* cache_rows) {
    std::vector<Json> out(urls.size(), Json::array());
    std::vector<std::pair<std::size_t, std::string>> todo;
    for (std::size_t i = 0; i < urls.size(); ++i) todo.push_back({i, urls[i]});
    for (int guard = 0; !todo.empty() && guard < 1000; ++guard) {
      std::vector<std::string> batch;
      for (auto& t : todo) batch.push_back(t.second);
      std::vector<Fetched> got = api_.get_all(batch);
      std::vector<std::pair<std::size_t, std::string>> next;
      for (std::size_t k = 0; k < got.size(); ++k) {
        Fetched& f = got[k];
        if (!f.data.is_array())
          throw UserError("GET " + f.url + ": expected a JSON array, got " + f.data.type_name());
        for (Json& e : f.data) out[todo[k].first].push_back(std::move(e));
        if (f.cache_update) cache_rows->push_back(std::move(*f.cache_update));
        if (f.next_url) next.push_back({todo[k].first, *f.next_url});
      }
      todo = std::move(next);
    }
    return out;
  }

  // One listing page: fetch, filter, fetch details, store all with the checkpoint. Returns true
  // when --max-issues stopped the crawl.
  bool page(const std::string& url, bool* changed, std::optional<std::string>* next) {
    Fetched listing = api_.get(url);
    if (!listing.data.is_array())
      throw UserError("GET " + url + ": expected a JSON array of issues, got " +
                      std::string(listing.data.type_name()));
    *next = listing.next_url;
    std::vector<CacheEntry> cache_rows;
    if (listing.cache_update) cache_rows.push_back(*listing.cache_update);

    bool stop = false;
    std::vector<Item> items;
    Stmt stored(db_,
                "SELECT i.updated_at FROM issues i JOIN repositories r ON r.id=i.repo_id "
                "WHERE r.full_name=? AND i.number=?");
    for (const Json& issue : listing.data) {
      if (!issue.is_object() || !opt_int(issue, "number"))
        throw UserError("GET " + url + ": an issue without a number");
      if (issue.contains("pull_request") && !issue["pull_request"].is_null()) {
        ++summary_.pull_requests_skipped;
        continue;
      }
      std::vector<std::string> labels = issue_label_names(issue);
      bool excluded = std::any_of(labels.begin(), labels.end(), [&](const std::string& l) {
        return std::find(o_.exclude_labels.begin(), o_.exclude_labels.end(), l) !=
               o_.exclude_labels.end();
      });
      if (excluded) {
        ++summary_.excluded;
        continue;
      }
      Item it{issue, *opt_int(issue, "number")};
      stored.bind(1, o_.repo).bind(2, it.number);
      bool known = stored.step();
      std::optional<std::string> old = known ? stored.opt_text(0) : std::nullopt;
      stored.reset();
      it.details = !known || old != opt_string(issue, "updated_at");
      // --max-issues counts new or changed issues; unchanged ones cost nothing.
      if (it.details && o_.max_issues > 0 && stored_this_run_ >= o_.max_issues) {
        stop = true;  // revisit this page next run: what is stored by then is unchanged
        *next = url;
        break;
      }
      if (it.details) ++stored_this_run_;
      items.push_back(std::move(it));
    }

    // Comments (only when the issue says it has some) and timelines, in parallel.
    std::vector<std::string> urls;
    std::vector<std::pair<std::size_t, bool>> owner;  // item, is_comments
    for (std::size_t i = 0; i < items.size(); ++i) {
      Item& it = items[i];
      if (!it.details) continue;
      std::string base = repo_url() + "/issues/" + std::to_string(it.number);
      if (o_.comments) {
        if (opt_int(it.issue, "comments").value_or(1) > 0) {
          urls.push_back(base + "/comments?per_page=100");
          owner.push_back({i, true});
        } else {
          it.have_comments = true;  // known to be empty
        }
      }
      if (o_.timeline) {
        urls.push_back(base + "/timeline?per_page=100");
        owner.push_back({i, false});
      }
    }
    std::vector<Json> fetched = fetch_paginated(urls, &cache_rows);
    for (std::size_t k = 0; k < fetched.size(); ++k) {
      Item& it = items[owner[k].first];
      if (owner[k].second) {
        it.comments = std::move(fetched[k]);
        it.have_comments = true;
      } else {
        it.timeline = std::move(fetched[k]);
        it.have_timeline = true;
      }
    }

    // One transaction: issues, comments, timelines, cache rows and the checkpoint.
    Transaction tx(db_);
    std::int64_t stored_count = 0;
    for (Item& it : items) {
      ++summary_.issues_seen;
      std::int64_t id = 0;
      UpsertResult r = store_.upsert_issue(o_.repo, it.issue, &id);
      if (r == UpsertResult::kInserted) ++summary_.new_issues;
      if (r == UpsertResult::kUpdated) ++summary_.updated_issues;
      if (r == UpsertResult::kUnchanged || r == UpsertResult::kStale) ++summary_.unchanged_issues;
      if (r == UpsertResult::kInserted || r == UpsertResult::kUpdated) {
        if (!stored_numbers_.insert(it.number).second) shifted_ = true;
        ++stored_count;
        *changed = true;
      }
      if (r == UpsertResult::kStale) continue;
      if (auto u = opt_string(it.issue, "updated_at"))
        if (!state_.max_updated_at || *u > *state_.max_updated_at) state_.max_updated_at = u;
      if (!it.details) continue;
      if (it.have_comments && store_.store_comments(id, it.comments)) {
        ++summary_.comment_sets_changed;
        *changed = true;
      }
      if (it.have_timeline && store_.store_timeline(id, o_.repo, it.timeline)) {
        ++summary_.timelines_changed;
        *changed = true;
      }
    }
    for (const CacheEntry& c : cache_rows) cache_.put(c);
    state_.next_url = *next;
    save_checkpoint(db_, state_, stored_count);
    tx.commit();
    ++summary_.pages;
    report();
    return stop;
  }

  void report() {
    if (!progress_) return;
    summary_.api = api_.stats();
    progress_(summary_);
  }

  Db& db_;
  const CrawlOptions& o_;
  std::string api_root_ = o_.api_url;
  IssueStore store_;
  HttpCache cache_;
  GitHubApi api_;
  CrawlProgress progress_;
  CrawlSummary summary_;
  CrawlState state_;
  std::int64_t stored_this_run_ = 0;
  std::set<std::int64_t> stored_numbers_;  // issues stored by this run
  bool shifted_ = false;                   // this walk re-stored one of them
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
  if (o.api.concurrency < 1 || o.api.concurrency > 64)
    throw UsageError("--concurrency must be between 1 and 64");
  if (o.max_issues < 0) throw UsageError("--max-issues must not be negative");
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
  Crawl c(db, options, notice, progress);
  return c.run();
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
