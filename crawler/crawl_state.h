// The crawl_state row of one repository + filter (schema 0002): checkpoint and counters.
#pragma once

#include <cstdint>
#include <functional>
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

// Records a run of a walk: marks it started, calls `walk` (which returns whether the walk
// completed), then marks it finished, or records why it stopped and rethrows. The recorded error
// must not contain secrets (errors never do).
void record_run(Db& db, std::int64_t state_id, const std::function<bool()>& walk);

}  // namespace convfail::crawler

namespace convfail::crawler {

// The current name of a repository asked for by `name`: itself, or the new name when a crawl
// saw it renamed.
std::string current_repository_name(Db& db, const std::string& name);

// Records that `old_name` now answers as `new_name` (GitHub id `github_id`): the stored
// repository takes the new name and id and keeps the old name as an alias. When a repository
// with the new name is stored already, the old one's issues move there only if the new one has
// none (else the old one becomes an alias of the new one and keeps its rows).
void record_rename(Db& db, const std::string& old_name, const std::string& new_name,
                   std::optional<std::int64_t> github_id);

}  // namespace convfail::crawler
