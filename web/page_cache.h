// The heavy pages of `convfail serve` (a campaign's report, the comparison of two campaigns)
// computed once per state of the database: kept until any connection commits a change (SQLite's
// `PRAGMA data_version` on a connection of the cache's own, which counts every other
// connection's commits, other processes' included). Concurrent requests for a page being
// computed wait for that one computation instead of repeating it. Bounded in entries and bytes
// (the least recently used go first); failures are not kept.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/db.h"
#include "web/api.h"

namespace convfail::web {

class PageCache {
 public:
  explicit PageCache(std::string db_path, std::size_t max_entries = 32,
                     std::size_t max_bytes = std::size_t{256} << 20);

  // The page of `key` for the current database state, made by `make` unless kept (or being made
  // by another request, which is then waited for). What `make` throws is thrown, not kept.
  ReportText get(const std::string& key, const std::function<ReportText()>& make);

  // How many times `make` ran (for tests and the bench).
  std::uint64_t computed() const;

 private:
  struct Entry {
    std::int64_t version = 0;
    bool done = false;
    std::exception_ptr error;
    ReportText page;
    std::uint64_t used = 0;
  };
  std::int64_t version();        // under mutex_
  void evict(std::int64_t now);  // under mutex_

  std::string db_path_;
  std::size_t max_entries_, max_bytes_;
  mutable std::mutex mutex_;
  std::condition_variable done_;
  std::unique_ptr<Db> version_db_;
  std::map<std::string, std::shared_ptr<Entry>> entries_;
  std::uint64_t clock_ = 0, computed_ = 0;
};

}  // namespace convfail::web
