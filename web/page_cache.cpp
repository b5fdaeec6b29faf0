#include "web/page_cache.h"

#include <vector>

namespace convfail::web {

PageCache::PageCache(std::string db_path, std::size_t max_entries, std::size_t max_bytes)
    : db_path_(std::move(db_path)), max_entries_(max_entries), max_bytes_(max_bytes) {}

std::int64_t PageCache::version() {
  if (!version_db_) version_db_ = std::make_unique<Db>(db_path_, OpenMode::kReadOnly);
  return version_db_->scalar("PRAGMA data_version");
}

std::uint64_t PageCache::computed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return computed_;
}

void PageCache::evict(std::int64_t now) {
  // Pages of an older state first, then the least recently used, until within both bounds.
  for (auto it = entries_.begin(); it != entries_.end();)
    it = it->second->done && it->second->version < now ? entries_.erase(it) : std::next(it);
  auto bytes = [&] {
    std::size_t n = 0;
    for (const auto& [key, e] : entries_) n += key.size() + e->page.text.size();
    return n;
  };
  while (entries_.size() > max_entries_ || bytes() > max_bytes_) {
    auto oldest = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->second->done && (oldest == entries_.end() || it->second->used < oldest->second->used))
        oldest = it;
    if (oldest == entries_.end()) break;  // every one is being made
    entries_.erase(oldest);
  }
}

ReportText PageCache::get(const std::string& key, const std::function<ReportText()>& make) {
  std::unique_lock<std::mutex> lock(mutex_);
  // Read before making: a change committed while the page is made leaves it under the older
  // version, so the next request makes it again.
  std::int64_t now = version();
  auto it = entries_.find(key);
  if (it != entries_.end() && it->second->version == now) {
    std::shared_ptr<Entry> e = it->second;
    done_.wait(lock, [&] { return e->done; });
    if (e->error) std::rethrow_exception(e->error);
    e->used = ++clock_;
    return e->page;
  }
  auto e = std::make_shared<Entry>();
  e->version = now;
  e->used = ++clock_;
  entries_[key] = e;
  ++computed_;
  lock.unlock();
  try {
    ReportText page = make();
    lock.lock();
    e->page = page;
    e->done = true;
    evict(now);
    done_.notify_all();
    return page;
  } catch (...) {
    if (!lock.owns_lock()) lock.lock();
    e->error = std::current_exception();
    e->done = true;
    auto same = entries_.find(key);
    if (same != entries_.end() && same->second == e) entries_.erase(same);
    done_.notify_all();
    throw;
  }
}

}  // namespace convfail::web
