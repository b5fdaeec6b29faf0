// The HTTP cache table (schema 0002): validators and bodies per URL for conditional requests.
#pragma once

#include <optional>
#include <string>

#include "core/db.h"

namespace convfail::crawler {

struct CacheEntry {
  std::string url;
  std::optional<std::string> etag;
  std::optional<std::string> last_modified;
  std::string body;
  std::optional<std::string> next_url;  // Link rel="next" sent with the body
};

class HttpCache {
 public:
  explicit HttpCache(Db& db);
  std::optional<CacheEntry> get(const std::string& url);
  // Inserts or replaces; call inside the transaction that stores what the body produced.
  void put(const CacheEntry& entry);

 private:
  Stmt select_;
  Stmt upsert_;
};

}  // namespace convfail::crawler
