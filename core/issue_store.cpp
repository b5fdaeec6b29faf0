#include "core/issue_store.h"

#include <set>

#include "core/error.h"
#include "core/text.h"

namespace convfail {
namespace {

// Whether the stored raw_json of an issue's rows (comments or events, by position) is `raws`.
bool same_as_stored(Stmt& select, std::int64_t issue_id,
                    const std::vector<const std::string*>& raws) {
  select.bind(1, issue_id);
  std::size_t i = 0;
  bool same = true;
  while (select.step()) {
    if (i >= raws.size() || select.text(0) != *raws[i]) same = false;
    ++i;
  }
  select.reset();
  return same && i == raws.size();
}

}  // namespace

IssueStore::IssueStore(Db& db)
    : db_(db),
      select_issue_(db, "SELECT id, updated_at, raw_json FROM issues WHERE repo_id=? AND number=?"),
      insert_issue_(db,
                    "INSERT INTO issues (repo_id, number, github_id, title, body, state, author, "
                    "author_association, created_at, updated_at, closed_at, html_url, "
                    "is_pull_request, comment_count, raw_json, body_truncated) "
                    "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?17)"),
      update_issue_(
          db,
          "UPDATE issues SET github_id=?3, title=?4, body=?5, state=?6, author=?7, "
          "author_association=?8, created_at=?9, updated_at=?10, closed_at=?11, "
          "html_url=?12, is_pull_request=?13, comment_count=?14, raw_json=?15, body_truncated=?17, "
          "stored_at=strftime('%Y-%m-%dT%H:%M:%SZ','now') WHERE id=?16"),
      delete_labels_(db, "DELETE FROM issue_labels WHERE issue_id=?"),
      insert_label_(db, "INSERT OR IGNORE INTO issue_labels (issue_id, name) VALUES (?, ?)"),
      select_comments_(db, "SELECT raw_json FROM comments WHERE issue_id=? ORDER BY position"),
      delete_comments_(db, "DELETE FROM comments WHERE issue_id=?"),
      insert_comment_(db,
                      "INSERT INTO comments (issue_id, position, github_id, author, "
                      "author_association, created_at, updated_at, body, raw_json, "
                      "body_truncated) VALUES (?,?,?,?,?,?,?,?,?,?)"),
      select_events_(db, "SELECT raw_json FROM timeline_events WHERE issue_id=? ORDER BY position"),
      delete_events_(db, "DELETE FROM timeline_events WHERE issue_id=?"),
      insert_event_(db,
                    "INSERT INTO timeline_events (issue_id, position, event, actor, created_at, "
                    "commit_id, source_repo, source_number, source_is_pull_request, "
                    "source_state, raw_json) VALUES (?,?,?,?,?,?,?,?,?,?,?)"),
      set_fix_link_(db, "UPDATE issues SET has_fix_link=? WHERE id=? AND has_fix_link<>?1") {}

IssueStore::~IssueStore() = default;

// TEMP tables mirroring the columns the store writes; flush() moves them into main.
struct IssueStore::Staging {
  explicit Staging(Db& db)
      : insert_issue(db,
                     "INSERT INTO temp.staged_issues (id, repo_id, number, github_id, title, body, "
                     "state, author, author_association, created_at, updated_at, closed_at, "
                     "html_url, is_pull_request, comment_count, raw_json, body_truncated) "
                     "VALUES (?16,?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?17)"),
        insert_label(db, "INSERT INTO temp.staged_labels (issue_id, name) VALUES (?, ?)"),
        insert_comment(db,
                       "INSERT INTO temp.staged_comments (issue_id, position, github_id, author, "
                       "author_association, created_at, updated_at, body, raw_json, "
                       "body_truncated) VALUES (?,?,?,?,?,?,?,?,?,?)"),
        insert_event(db,
                     "INSERT INTO temp.staged_events (issue_id, position, event, actor, "
                     "created_at, commit_id, source_repo, source_number, source_is_pull_request, "
                     "source_state, raw_json) VALUES (?,?,?,?,?,?,?,?,?,?,?)"),
        set_fix_link(db, "UPDATE temp.staged_issues SET has_fix_link=? WHERE id=?"),
        next_issue_id(db, "SELECT coalesce(max(id), 0) + 1 FROM main.issues") {
    // Ids were assigned in order from max(id)+1, as SQLite would have; comments and events keep
    // their staging order.
    moves.emplace_back(
        db,
        "INSERT INTO main.issues (id, repo_id, number, github_id, title, body, state, author, "
        "author_association, created_at, updated_at, closed_at, html_url, is_pull_request, "
        "comment_count, has_fix_link, raw_json, body_truncated) SELECT id, repo_id, number, "
        "github_id, title, body, state, author, author_association, created_at, updated_at, "
        "closed_at, html_url, is_pull_request, comment_count, has_fix_link, raw_json, "
        "body_truncated FROM temp.staged_issues ORDER BY id");
    moves.emplace_back(db,
                       "INSERT OR IGNORE INTO main.issue_labels (issue_id, name) "
                       "SELECT issue_id, name FROM temp.staged_labels");
    moves.emplace_back(
        db,
        "INSERT INTO main.comments (issue_id, position, github_id, author, author_association, "
        "created_at, updated_at, body, raw_json, body_truncated) SELECT issue_id, position, "
        "github_id, author, author_association, created_at, updated_at, body, raw_json, "
        "body_truncated FROM temp.staged_comments ORDER BY rowid");
    moves.emplace_back(
        db,
        "INSERT INTO main.timeline_events (issue_id, position, event, actor, created_at, "
        "commit_id, source_repo, source_number, source_is_pull_request, source_state, raw_json) "
        "SELECT issue_id, position, event, actor, created_at, commit_id, source_repo, "
        "source_number, source_is_pull_request, source_state, raw_json FROM temp.staged_events "
        "ORDER BY rowid");
    for (const char* table : {"staged_issues", "staged_labels", "staged_comments", "staged_events"})
      moves.emplace_back(db, std::string("DELETE FROM temp.") + table);
  }
  bool holds(std::int64_t issue_id) const { return issue_id >= first_id && issue_id < next_id; }
  std::size_t size() const { return static_cast<std::size_t>(next_id - first_id); }

  Stmt insert_issue, insert_label, insert_comment, insert_event, set_fix_link, next_issue_id;
  std::vector<Stmt> moves;  // flush(): into main, then the staging tables emptied
  std::size_t batch = 0;
  // Staged issues have the ids [first_id, next_id): the first of a batch takes the store's
  // max(id) + 1 as it is then (another process may have added issues since the last batch).
  std::int64_t first_id = 0, next_id = 0;
  std::set<std::pair<std::int64_t, std::int64_t>> keys;  // staged (repo_id, number)
};

void IssueStore::begin_bulk(std::size_t batch) {
  if (staging_) return;
  db_.exec(
      "CREATE TEMP TABLE IF NOT EXISTS staged_issues (id INTEGER PRIMARY KEY, repo_id, number, "
      "github_id, title, body, state, author, author_association, created_at, updated_at, "
      "closed_at, html_url, is_pull_request, comment_count, has_fix_link DEFAULT 0, raw_json, "
      "body_truncated DEFAULT 0);"
      "CREATE TEMP TABLE IF NOT EXISTS staged_labels (issue_id, name);"
      "CREATE TEMP TABLE IF NOT EXISTS staged_comments (issue_id, position, github_id, author, "
      "author_association, created_at, updated_at, body, raw_json, body_truncated DEFAULT 0);"
      "CREATE TEMP TABLE IF NOT EXISTS staged_events (issue_id, position, event, actor, "
      "created_at, commit_id, source_repo, source_number, source_is_pull_request, source_state, "
      "raw_json);"
      "DELETE FROM temp.staged_issues; DELETE FROM temp.staged_labels;"
      "DELETE FROM temp.staged_comments; DELETE FROM temp.staged_events;");
  staging_ = std::make_unique<Staging>(db_);
  staging_->batch = batch ? batch : 1;
}

void IssueStore::flush() {
  if (!staging_ || staging_->size() == 0) return;
  for (Stmt& st : staging_->moves) st.run();
  staging_->first_id = staging_->next_id;
  staging_->keys.clear();
}

std::int64_t IssueStore::rename_repository(const std::string& old_name, const std::string& new_name,
                                           std::optional<std::int64_t> github_id) {
  auto id_of = [this](const std::string& name) -> std::optional<std::int64_t> {
    Stmt st(db_, "SELECT id FROM repositories WHERE full_name=?");
    st.bind(1, name);
    if (!st.step()) return std::nullopt;
    return st.int64(0);
  };
  std::optional<std::int64_t> old_id = id_of(old_name), new_id = id_of(new_name);
  std::int64_t target;
  if (new_id && (!old_id || *new_id != *old_id)) {
    target = *new_id;
  } else if (old_id) {
    Stmt up(db_, "UPDATE repositories SET full_name=? WHERE id=?");
    up.bind(1, new_name).bind(2, *old_id).run();
    target = *old_id;
  } else {
    Stmt ins(db_, "INSERT INTO repositories (full_name) VALUES (?)");
    ins.bind(1, new_name).run();
    target = *id_of(new_name);
  }
  if (github_id) {
    Stmt up(db_, "UPDATE repositories SET github_id=? WHERE id=?");
    up.bind(1, *github_id).bind(2, target).run();
  }
  repo_ids_.erase(old_name);  // may name another row now (or none)
  repo_ids_[new_name] = target;
  return target;
}

std::int64_t IssueStore::repository_id(const std::string& full_name) {
  auto it = repo_ids_.find(full_name);
  if (it != repo_ids_.end()) return it->second;
  check_repo_name(full_name);
  Stmt ins(db_, "INSERT INTO repositories (full_name) VALUES (?) ON CONFLICT DO NOTHING");
  ins.bind(1, full_name).run();
  Stmt sel(db_, "SELECT id FROM repositories WHERE full_name=?");
  sel.bind(1, full_name);
  if (!sel.step()) db_.fail("repository lookup");
  std::int64_t id = sel.int64(0);
  repo_ids_[full_name] = id;
  return id;
}

std::optional<std::int64_t> IssueStore::find_issue(const std::string& repo, std::int64_t number) {
  flush();
  Stmt sel(db_,
           "SELECT i.id FROM issues i JOIN repositories r ON r.id=i.repo_id "
           "WHERE r.full_name=? AND i.number=?");
  sel.bind(1, repo).bind(2, number);
  if (!sel.step()) return std::nullopt;
  return sel.int64(0);
}

UpsertResult IssueStore::upsert_issue(const std::string& repo, const Json& issue,
                                      std::int64_t* issue_id,
                                      std::optional<std::string_view> raw_text) {
  IssueRecord record = issue_record(issue, raw_text, limits_, [&](const Json&) { return repo; });
  return write_issue(record, issue_id);
}

bool IssueStore::store_comments(std::int64_t issue_id, const Json& comments) {
  return write_comments(issue_id, comment_records(comments, limits_));
}

bool IssueStore::store_timeline(std::int64_t issue_id, const std::string& repo,
                                const Json& events) {
  std::vector<EventRecord> records = event_records(events, limits_);
  return write_timeline(issue_id, records, timeline_has_fix_link(repo, events));
}

UpsertResult IssueStore::write_issue(const IssueRecord& r, std::int64_t* issue_id) {
  std::int64_t repo_id = repository_id(r.repo);
  if (staging_ &&
      (staging_->size() >= staging_->batch || staging_->keys.count({repo_id, r.number})))
    flush();  // a full batch, or the same issue twice: let the lookup below see it

  select_issue_.bind(1, repo_id).bind(2, r.number);
  std::optional<std::int64_t> existing;
  std::optional<std::string> stored_updated;
  std::string stored_raw;
  if (select_issue_.step()) {
    existing = select_issue_.int64(0);
    stored_updated = select_issue_.opt_text(1);
    stored_raw = select_issue_.text(2);
  }
  select_issue_.reset();

  if (existing) {
    *issue_id = *existing;
    if (r.updated_at && stored_updated) {
      // Instants, not text: a copy stored with an offset by an older version compares right.
      int order = compare_times(*r.updated_at, *stored_updated);
      if (order < 0) return UpsertResult::kStale;
      if (order == 0) return UpsertResult::kUnchanged;
    } else if (r.raw_json == stored_raw) {
      return UpsertResult::kUnchanged;
    }
  }

  bool staged = staging_ && !existing;
  Stmt& st = existing ? update_issue_ : staged ? staging_->insert_issue : insert_issue_;
  st.bind(1, repo_id)
      .bind(2, r.number)
      .bind(3, r.github_id)
      .bind(4, r.title)
      .bind(5, r.body)
      .bind(6, r.state)
      .bind(7, r.author)
      .bind(8, r.author_association)
      .bind(9, r.created_at)
      .bind(10, r.updated_at)
      .bind(11, r.closed_at)
      .bind(12, r.html_url)
      .bind(13, static_cast<std::int64_t>(r.is_pull_request))
      .bind(14, r.comment_count)
      .bind(15, r.raw_json)
      .bind(17, static_cast<std::int64_t>(r.body_truncated));
  if (existing) st.bind(16, *existing);
  if (staged) {
    if (staging_->size() == 0) {
      staging_->next_issue_id.step();
      staging_->first_id = staging_->next_id = staging_->next_issue_id.int64(0);
      staging_->next_issue_id.reset();
    }
    *issue_id = staging_->next_id++;
    st.bind(16, *issue_id);
    staging_->keys.insert({repo_id, r.number});
  }
  st.run();
  if (!existing && !staged) *issue_id = db_.last_insert_id();

  if (existing) delete_labels_.bind(1, *issue_id).run();
  Stmt& label = staged ? staging_->insert_label : insert_label_;
  for (const std::string& name : r.labels) label.bind(1, *issue_id).bind(2, name).run();
  return existing ? UpsertResult::kUpdated : UpsertResult::kInserted;
}

bool IssueStore::write_comments(std::int64_t issue_id, const std::vector<CommentRecord>& comments) {
  bool staged = staging_ && staging_->holds(issue_id);
  if (staged) {
    if (comments.empty()) return false;  // a staged issue has no stored comments
  } else {
    std::vector<const std::string*> raws;
    for (const CommentRecord& c : comments) raws.push_back(&c.raw_json);
    if (same_as_stored(select_comments_, issue_id, raws)) return false;
    delete_comments_.bind(1, issue_id).run();
  }
  Stmt& insert = staged ? staging_->insert_comment : insert_comment_;
  std::int64_t pos = 0;
  for (const CommentRecord& c : comments) {
    insert.bind(1, issue_id)
        .bind(2, pos++)
        .bind(3, c.github_id)
        .bind(4, c.author)
        .bind(5, c.author_association)
        .bind(6, c.created_at)
        .bind(7, c.updated_at)
        .bind(8, c.body)
        .bind(9, c.raw_json)
        .bind(10, static_cast<std::int64_t>(c.body_truncated))
        .run();
  }
  return true;
}

bool IssueStore::write_timeline(std::int64_t issue_id, const std::vector<EventRecord>& events,
                                bool has_fix_link) {
  bool staged = staging_ && staging_->holds(issue_id);
  if (staged) {
    if (events.empty()) return false;  // a staged issue has no stored events
  } else {
    std::vector<const std::string*> raws;
    for (const EventRecord& e : events) raws.push_back(&e.raw_json);
    if (same_as_stored(select_events_, issue_id, raws)) return false;
    delete_events_.bind(1, issue_id).run();
  }
  Stmt& insert = staged ? staging_->insert_event : insert_event_;
  std::int64_t pos = 0;
  for (const EventRecord& e : events) {
    insert.bind(1, issue_id)
        .bind(2, pos++)
        .bind(3, e.event)
        .bind(4, e.actor)
        .bind(5, e.created_at)
        .bind(6, e.commit_id)
        .bind(7, e.source_repo)
        .bind(8, e.source_number)
        .bind(9, e.source_is_pull_request)
        .bind(10, e.source_state)
        .bind(11, e.raw_json)
        .run();
  }
  std::int64_t fix = has_fix_link ? 1 : 0;
  Stmt& set_fix = staged ? staging_->set_fix_link : set_fix_link_;
  set_fix.bind(1, fix).bind(2, issue_id).run();
  return true;
}

}  // namespace convfail
