#include "crawler/http_cache.h"

namespace convfail::crawler {

HttpCache::HttpCache(Db& db)
    : select_(db, "SELECT etag, last_modified, body, next_url FROM http_cache WHERE url=?"),
      upsert_(db,
              "INSERT INTO http_cache (url, etag, last_modified, body, next_url) "
              "VALUES (?1,?2,?3,?4,?5) ON CONFLICT(url) DO UPDATE SET etag=?2, "
              "last_modified=?3, body=?4, next_url=?5, "
              "stored_at=strftime('%Y-%m-%dT%H:%M:%SZ','now')") {}

std::optional<CacheEntry> HttpCache::get(const std::string& url) {
  select_.bind(1, url);
  std::optional<CacheEntry> out;
  if (select_.step()) {
    out = CacheEntry{url, select_.opt_text(0), select_.opt_text(1), select_.text(2),
                     select_.opt_text(3)};
  }
  select_.reset();
  return out;
}

void HttpCache::put(const CacheEntry& e) {
  upsert_.bind(1, e.url)
      .bind(2, e.etag)
      .bind(3, e.last_modified)
      .bind(4, e.body)
      .bind(5, e.next_url)
      .run();
}

}  // namespace convfail::crawler
