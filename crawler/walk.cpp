#include "crawler/walk.h"

#include <algorithm>

#include "core/error.h"

namespace convfail::crawler {
namespace {

std::string trimmed_root(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

ApiOptions api_options(const CrawlOptions& o, bool conditional) {
  ApiOptions a = o.api;
  a.api_root = trimmed_root(o.api_url);
  a.conditional = a.conditional && conditional;
  return a;
}

}  // namespace

Walk::Walk(Db& db, const CrawlOptions& o, const std::function<void(const std::string&)>& notice,
           const CrawlProgress& progress, const std::string& api_kind, bool conditional)
    : db_(db),
      o_(o),
      api_root_(trimmed_root(o.api_url)),
      repo_name_(o.repo),
      store_(db),
      cache_(db),
      api_(api_options(o, conditional), conditional ? &cache_ : nullptr, notice),
      notice_(notice),
      progress_(progress),
      ledger_(db, store_) {
  api_.on_progress = [this] { report(); };
  summary_.repo = o.repo;
  summary_.api_kind = api_kind;
}

CrawlSummary Walk::run() {
  // A repository seen renamed by an earlier run is asked for by its new name (no redirect).
  repo_name_ = current_repository_name(db_, o_.repo);
  summary_.repo = repo_name_;
  std::int64_t repo_id = store_.repository_id(repo_name_);
  state_ = load_crawl_state(db_, repo_id, crawl_filter_key(o_));
  record_run(db_, state_.id, [this] {
    walk_all();
    return summary_.complete;
  });
  tally();
  summary_.api = api_.stats();
  return summary_;
}

// Walks the listing until a walk stores no change (so issues updated during the crawl are
// caught, and REST's last URL is cached for the next run's conditional request).
void Walk::walk_all() {
  bool repeat = false;
  for (int walk = 0; walk < std::max(1, o_.max_walks); ++walk) {
    std::string at = start(walk, walk == 0 ? state_.next_url : std::nullopt, repeat);
    bool changed = false;
    shifted_ = false;
    walk_seen_.clear();
    guard_.start();
    for (;;) {
      std::optional<std::string> next;
      if (page(at, &changed, &next)) return;  // --max-issues reached; the checkpoint resumes
      if (!next) break;
      at = *next;
    }
    if (!changed) break;
    repeat = shifted_;
  }
  summary_.complete = true;
}

void Walk::listing(const std::string& at, const std::vector<std::int64_t>& numbers,
                   const std::optional<std::string>& next, std::optional<std::int64_t> total) {
  if (total) guard_.expect_total(*total);
  if (auto why = guard_.page(numbers, next.has_value()))
    throw UserError(where(at) + ": " + *why + "; stopping, the " + std::to_string(stored_) +
                    " issue(s) stored by this run are kept");
  walk_seen_.insert(at);
  if (!next) return;
  if (walk_seen_.count(*next))
    throw UserError(where(at) + ": the next page, " + *next +
                    ", is one already fetched in this walk of the issue listing (pagination "
                    "cycle); nothing of it was stored");
  if (static_cast<std::int64_t>(walk_seen_.size()) >= o_.max_pages)
    throw UserError(where(at) + ": more than " + std::to_string(o_.max_pages) +
                    " pages of the issue listing (--max-pages); stopping, nothing of this page "
                    "was stored");
}

std::optional<FetchedIssue> Walk::admit(const Json& issue, std::int64_t number, bool* stop) {
  if (is_pull_request(issue)) {
    ledger_.pull_request_skipped(number);
    return std::nullopt;
  }
  std::vector<std::string> labels = issue_label_names(issue);
  bool excluded = std::any_of(labels.begin(), labels.end(), [&](const std::string& l) {
    return std::find(o_.exclude_labels.begin(), o_.exclude_labels.end(), l) !=
           o_.exclude_labels.end();
  });
  if (excluded) {
    ledger_.excluded(number);
    return std::nullopt;
  }
  FetchedIssue it{issue, number, ledger_.needs_details(repo_name_, number, issue)};
  // --max-issues counts new or changed issues; unchanged ones cost nothing.
  if (it.details && o_.max_issues > 0 && stored_ >= o_.max_issues) {
    *stop = true;
    return std::nullopt;
  }
  if (it.details) ++stored_;
  return it;
}

void Walk::store(std::vector<FetchedIssue>& items, const std::string& served_by, bool* changed,
                 const std::optional<std::string>& next,
                 const std::vector<CacheEntry>& cache_rows) {
  // One transaction: issues, comments, timelines, cache rows and the checkpoint.
  Transaction tx(db_);
  std::vector<std::int64_t> stored =
      ledger_.store_page(repo_name_, items, state_, served_by, changed);
  for (std::int64_t n : stored)
    if (!stored_numbers_.insert(n).second) shifted_ = true;
  for (const CacheEntry& c : cache_rows) cache_.put(c);
  state_.next_url = next;
  save_checkpoint(db_, state_, static_cast<std::int64_t>(stored.size()));
  tx.commit();
  ++summary_.pages;
  report();
}

void Walk::renamed(const std::string& new_name, std::optional<std::int64_t> github_id) {
  record_rename(db_, repo_name_, new_name, github_id);
  if (notice_)
    notice_("repository " + repo_name_ + " was renamed to " + new_name +
            "; stored under the new name, later runs ask for it directly");
  repo_name_ = new_name;
  summary_.repo = repo_name_;
}

// The summary's counts from the per-issue outcomes (each issue once).
void Walk::tally() {
  summary_.repo = repo_name_;
  ledger_.fill(summary_);
}

void Walk::report() {
  if (!progress_) return;
  tally();
  summary_.api = api_.stats();
  progress_(summary_);
}

}  // namespace convfail::crawler
