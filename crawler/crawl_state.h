// The crawl_state row of one repository + filter (schema 0002): checkpoint and counters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/db.h"

namespace convfail::crawler {

struct CrawlState {
  std::int64_t id = 0;
  std::optional<std::string> max_updated_at;
  std::optional<std::string> next_url;  // resume cursor; nullopt when the last walk completed
};

// Loads the row, creating it on first use.
CrawlState load_crawl_state(Db& db, std::int64_t repo_id, const std::string& filter_key);

// The page checkpoint: call inside the page's transaction.
void save_checkpoint(Db& db, const CrawlState& state, std::int64_t issues_stored);

void mark_run_started(Db& db, std::int64_t state_id);
void mark_run_finished(Db& db, std::int64_t state_id, bool complete);
// Records why a run stopped; the message must not contain secrets (errors never do).
void mark_run_failed(Db& db, std::int64_t state_id, const std::string& error);

}  // namespace convfail::crawler
