// What the REST and the GraphQL fuzz targets share: a page's issues stored as the crawl stores
// them (crawler/walk.cpp: pull requests skipped, CrawlLedger::store_page and the checkpoint in one
// transaction), with the invariant of a refused page: nothing of it is stored.
#pragma once

#include <string>
#include <vector>

#include "core/error.h"
#include "core/issue_store.h"
#include "crawler/crawl_ledger.h"
#include "crawler/crawl_state.h"
#include "fuzz_check.h"
#include "fuzz_db.h"

namespace convfail::fuzz {

inline void store_page_as_crawl_does(std::vector<crawler::FetchedIssue>& items) {
  auto db = fresh_db();
  IssueStore store(*db);
  crawler::CrawlLedger ledger(*db, store);
  const std::string repo = "acme/conv";
  crawler::CrawlState state = crawler::load_crawl_state(*db, store.repository_id(repo), "fuzz");
  std::int64_t before = db->scalar("SELECT count(*) FROM issues");
  bool changed = false;
  try {
    Transaction tx(*db);
    std::vector<std::int64_t> stored = ledger.store_page(repo, items, state, "fuzz", &changed);
    crawler::save_checkpoint(*db, state, static_cast<std::int64_t>(stored.size()));
    tx.commit();
    FUZZ_CHECK(db->scalar("SELECT count(*) FROM issues") <=
               static_cast<std::int64_t>(items.size()));
  } catch (const UserError&) {
    // A page the store refuses leaves the database as it was.
    FUZZ_CHECK(db->scalar("SELECT count(*) FROM issues") == before);
    FUZZ_CHECK(db->scalar("SELECT count(*) FROM comments") == 0);
    FUZZ_CHECK(db->scalar("SELECT count(*) FROM timeline_events") == 0);
  }
}

// The crawl's choice of a page's issues (Walk::admit without --max-issues or exclusions): pull
// requests are skipped, every other issue is new, so its comments and timeline are stored.
inline bool admit_as_crawl_does(const Json& issue) {
  return !is_pull_request(issue);
}

}  // namespace convfail::fuzz
