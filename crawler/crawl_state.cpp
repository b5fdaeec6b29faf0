#include "crawler/crawl_state.h"

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

}  // namespace convfail::crawler
