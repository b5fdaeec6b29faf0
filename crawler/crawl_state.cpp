#include "crawler/crawl_state.h"

#include "core/issue_store.h"

namespace convfail::crawler {

CrawlState load_crawl_state(Db& db, std::int64_t repo_id, const std::string& filter_key) {
  Stmt ins(db,
           "INSERT INTO crawl_state (repo_id, filter_key) VALUES (?, ?) ON CONFLICT DO NOTHING");
  ins.bind(1, repo_id).bind(2, filter_key).run();
  Stmt sel(db,
           "SELECT id, max_updated_at, next_url FROM crawl_state WHERE repo_id=? AND "
           "filter_key=?");
  sel.bind(1, repo_id).bind(2, filter_key);
  if (!sel.step()) db.fail("crawl state lookup");
  return CrawlState{sel.int64(0), sel.opt_text(1), sel.opt_text(2)};
}

void save_checkpoint(Db& db, const CrawlState& s, std::int64_t issues_stored) {
  Stmt st(db,
          "UPDATE crawl_state SET max_updated_at=?1, next_url=?2, pages_done=pages_done+1, "
          "issues_stored=issues_stored+?3 WHERE id=?4");
  st.bind(1, s.max_updated_at).bind(2, s.next_url).bind(3, issues_stored).bind(4, s.id).run();
}

namespace {

void mark_run_started(Db& db, std::int64_t id) {
  Stmt st(db,
          "UPDATE crawl_state SET last_started_at=strftime('%Y-%m-%dT%H:%M:%SZ','now') "
          "WHERE id=?");
  st.bind(1, id).run();
}

void mark_run_finished(Db& db, std::int64_t id, bool complete) {
  Stmt st(db,
          "UPDATE crawl_state SET last_finished_at=strftime('%Y-%m-%dT%H:%M:%SZ','now'), "
          "last_error=NULL, runs_completed=runs_completed+?1 WHERE id=?2");
  st.bind(1, static_cast<std::int64_t>(complete ? 1 : 0)).bind(2, id).run();
}

void mark_run_failed(Db& db, std::int64_t id, const std::string& error) {
  Stmt st(db, "UPDATE crawl_state SET last_error=? WHERE id=?");
  st.bind(1, error).bind(2, id).run();
}

}  // namespace

void record_run(Db& db, std::int64_t state_id, const std::function<bool()>& walk) {
  mark_run_started(db, state_id);
  bool complete = false;
  try {
    complete = walk();
  } catch (const std::exception& e) {
    mark_run_failed(db, state_id, e.what());
    throw;
  }
  mark_run_finished(db, state_id, complete);
}

}  // namespace convfail::crawler

namespace convfail::crawler {

std::string current_repository_name(Db& db, const std::string& name) {
  Stmt st(db,
          "SELECT r.full_name FROM repository_aliases a JOIN repositories r ON r.id=a.repo_id "
          "WHERE a.old_name=?");
  st.bind(1, name);
  if (st.step())
    if (auto n = st.opt_text(0)) return *n;
  return name;
}

void record_rename(Db& db, const std::string& old_name, const std::string& new_name,
                   std::optional<std::int64_t> github_id) {
  Transaction tx(db);
  std::int64_t target = IssueStore(db).rename_repository(old_name, new_name, github_id);
  Stmt alias(db,
             "INSERT INTO repository_aliases (old_name, repo_id) VALUES (?, ?) "
             "ON CONFLICT (old_name) DO UPDATE SET repo_id=excluded.repo_id");
  alias.bind(1, old_name).bind(2, target).run();
  // A name that was an alias and is now the current name again is no alias any more.
  Stmt drop(db, "DELETE FROM repository_aliases WHERE old_name=?");
  drop.bind(1, new_name).run();
  tx.commit();
}

}  // namespace convfail::crawler
