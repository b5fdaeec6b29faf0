#include "crawler/crawl_ledger.h"

#include <algorithm>

#include "core/error.h"
#include "core/json_util.h"
#include "core/text.h"

namespace convfail::crawler {

CrawlLedger::CrawlLedger(Db& db, IssueStore& store)
    : store_(store),
      stored_updated_at_(db,
                         "SELECT i.updated_at FROM issues i JOIN repositories r ON r.id=i.repo_id "
                         "WHERE r.full_name=? AND i.number=?") {}

bool CrawlLedger::needs_details(const std::string& repo, std::int64_t number, const Json& issue) {
  stored_updated_at_.bind(1, repo).bind(2, number);
  bool known = stored_updated_at_.step();
  std::optional<std::string> old = known ? stored_updated_at_.opt_text(0) : std::nullopt;
  stored_updated_at_.reset();
  std::optional<std::string> now = opt_string(issue, "updated_at");
  if (!known) return true;
  if (old && now) return compare_times(*old, *now) != 0;  // instants: stored times are UTC
  return old != now;
}

std::vector<std::int64_t> CrawlLedger::store_page(const std::string& repo,
                                                  std::vector<FetchedIssue>& items,
                                                  CrawlState& state, const std::string& served_by,
                                                  bool* changed) {
  std::vector<std::int64_t> stored;
  const FetchedIssue* current = nullptr;  // names the object a schema error comes from
  try {
    for (FetchedIssue& it : items) {
      current = &it;
      std::int64_t id = 0;
      UpsertResult r = store_.upsert_issue(repo, it.issue, &id);
      int rank = r == UpsertResult::kInserted ? 2 : r == UpsertResult::kUpdated ? 1 : 0;
      auto [slot, fresh] = outcome_.insert({it.number, rank});
      if (!fresh) slot->second = std::max(slot->second, rank);
      if (r == UpsertResult::kInserted || r == UpsertResult::kUpdated) {
        stored.push_back(it.number);
        *changed = true;
      }
      if (r == UpsertResult::kStale) continue;
      if (auto u = opt_string(it.issue, "updated_at"))
        if (auto utc = utc_time(*u))  // stored as the store stores it: UTC
          if (!state.max_updated_at || compare_times(*utc, *state.max_updated_at) > 0)
            state.max_updated_at = utc;
      if (!it.details) continue;
      if (it.have_comments && store_.store_comments(id, it.comments)) {
        comments_changed_.insert(it.number);
        *changed = true;
      }
      if (it.have_timeline && store_.store_timeline(id, repo, it.timeline)) {
        timelines_changed_.insert(it.number);
        *changed = true;
      }
    }
  } catch (const UserError& e) {  // the store's schema checks: say which issue, store nothing
    if (!current) throw;
    throw UserError(repo + "#" + std::to_string(current->number) + " as served by " + served_by +
                    ": " + e.what());
  }
  return stored;
}

void CrawlLedger::fill(CrawlSummary& s) const {
  s.issues_seen = static_cast<std::int64_t>(outcome_.size());
  s.new_issues = s.updated_issues = s.unchanged_issues = 0;
  for (const auto& [number, o] : outcome_) {
    if (o == 2) ++s.new_issues;
    if (o == 1) ++s.updated_issues;
    if (o == 0) ++s.unchanged_issues;
  }
  s.pull_requests_skipped = static_cast<std::int64_t>(prs_.size());
  s.excluded = static_cast<std::int64_t>(excluded_.size());
  s.comment_sets_changed = static_cast<std::int64_t>(comments_changed_.size());
  s.timelines_changed = static_cast<std::int64_t>(timelines_changed_.size());
}

void WalkGuard::start() {
  seen_.clear();
  stale_ = 0;
  delivered_ = 0;
  total_.reset();
}

void WalkGuard::expect_total(std::int64_t total) {
  if (!total_ && total >= 0) total_ = total;
}

std::optional<std::string> WalkGuard::page(const std::vector<std::int64_t>& numbers,
                                           bool has_next) {
  bool fresh = false;
  for (std::int64_t n : numbers) fresh = seen_.insert(n).second || fresh;
  delivered_ += static_cast<std::int64_t>(numbers.size());
  stale_ = fresh ? 0 : stale_ + 1;
  if (!has_next) return std::nullopt;
  if (stale_ >= kStalePages)
    return std::to_string(stale_) +
           " pages in a row brought no issue not seen in this walk, yet the server offers "
           "another (endless pagination)";
  if (total_ && delivered_ > *total_ + std::max<std::int64_t>(100, *total_ / 10))
    return "the server gave " + std::to_string(delivered_) + " issues in this walk, more than " +
           "its totalCount of " + std::to_string(*total_) + " allows (endless pagination)";
  return std::nullopt;
}

}  // namespace convfail::crawler
