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

// Bulk mode's rows wait in memory and reach the store through convfail_pending, an eponymous
// virtual table of this connection: `INSERT INTO main.T (...) SELECT c0, c1, ... FROM
// convfail_pending(?1)`, ?1 the rows bound with sqlite3_bind_pointer. One statement per table and
// batch, so the FTS triggers run in one statement (one FTS5 flush), and no row is written twice
// (they were staged in TEMP tables, written there and read back).
namespace {

constexpr const char* kPendingPointer = "convfail_pending";
constexpr int kPendingColumns = 18;  // the widest rows: issues

// A cell of a pending row.
struct Cell {
  enum Kind : unsigned char { kNull, kInt, kText } kind = kNull;
  std::int64_t i = 0;
  std::string s;
};

// The rows of one table waiting for flush(), `width` cells each, in insertion order.
struct PendingRows {
  explicit PendingRows(std::size_t w) : width(w) {}
  std::size_t rows() const { return cells.size() / width; }
  void clear() { cells.clear(); }
  PendingRows& add(std::int64_t v) {
    Cell& c = cells.emplace_back();
    c.kind = Cell::kInt;
    c.i = v;
    return *this;
  }
  PendingRows& add(const std::optional<std::int64_t>& v) {
    if (v) return add(*v);
    cells.emplace_back();
    return *this;
  }
  PendingRows& add(std::string_view v) {
    Cell& c = cells.emplace_back();
    c.kind = Cell::kText;
    c.s.assign(v);
    return *this;
  }
  PendingRows& add(const std::optional<std::string>& v) {
    if (v) return add(std::string_view(*v));
    cells.emplace_back();
    return *this;
  }

  std::size_t width;
  std::vector<Cell> cells;
};

struct PendingCursor : sqlite3_vtab_cursor {
  const PendingRows* rows = nullptr;
  std::size_t row = 0;
};

int pending_connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char**) {
  std::string schema = "CREATE TABLE x(";
  for (int i = 0; i < kPendingColumns; ++i) schema += "c" + std::to_string(i) + ", ";
  schema += "rows HIDDEN)";
  int rc = sqlite3_declare_vtab(db, schema.c_str());
  if (rc != SQLITE_OK) return rc;
  *out = new sqlite3_vtab{};
  return SQLITE_OK;
}

int pending_disconnect(sqlite3_vtab* vtab) {
  delete vtab;
  return SQLITE_OK;
}

// Rows only through the hidden argument: convfail_pending(?1).
int pending_best_index(sqlite3_vtab*, sqlite3_index_info* info) {
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.iColumn != kPendingColumns || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!c.usable) return SQLITE_CONSTRAINT;
    info->aConstraintUsage[i].argvIndex = 1;
    info->aConstraintUsage[i].omit = 1;
    info->idxNum = 1;
    info->estimatedCost = 1;
    return SQLITE_OK;
  }
  info->idxNum = 0;  // no argument: no rows
  info->estimatedCost = 1e12;
  return SQLITE_OK;
}

int pending_open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
  *out = new PendingCursor{};
  return SQLITE_OK;
}

int pending_close(sqlite3_vtab_cursor* cursor) {
  delete static_cast<PendingCursor*>(cursor);
  return SQLITE_OK;
}

int pending_filter(sqlite3_vtab_cursor* cursor, int idx, const char*, int argc,
                   sqlite3_value** argv) {
  auto* c = static_cast<PendingCursor*>(cursor);
  c->rows = idx == 1 && argc == 1
                ? static_cast<const PendingRows*>(sqlite3_value_pointer(argv[0], kPendingPointer))
                : nullptr;
  c->row = 0;
  return SQLITE_OK;
}

int pending_next(sqlite3_vtab_cursor* cursor) {
  ++static_cast<PendingCursor*>(cursor)->row;
  return SQLITE_OK;
}

int pending_eof(sqlite3_vtab_cursor* cursor) {
  auto* c = static_cast<PendingCursor*>(cursor);
  return !c->rows || c->row >= c->rows->rows();
}

int pending_column(sqlite3_vtab_cursor* cursor, sqlite3_context* ctx, int col) {
  auto* c = static_cast<PendingCursor*>(cursor);
  if (col < 0 || static_cast<std::size_t>(col) >= c->rows->width) {
    sqlite3_result_null(ctx);
    return SQLITE_OK;
  }
  const Cell& cell = c->rows->cells[c->row * c->rows->width + static_cast<std::size_t>(col)];
  switch (cell.kind) {
    case Cell::kNull:
      sqlite3_result_null(ctx);
      break;
    case Cell::kInt:
      sqlite3_result_int64(ctx, cell.i);
      break;
    case Cell::kText:  // the rows outlive the statement
      sqlite3_result_text64(ctx, cell.s.data(), cell.s.size(), SQLITE_STATIC, SQLITE_UTF8);
      break;
  }
  return SQLITE_OK;
}

int pending_rowid(sqlite3_vtab_cursor* cursor, sqlite3_int64* rowid) {
  *rowid = static_cast<sqlite3_int64>(static_cast<PendingCursor*>(cursor)->row) + 1;
  return SQLITE_OK;
}

const sqlite3_module& pending_module() {
  static const sqlite3_module module = [] {
    sqlite3_module m{};
    m.xConnect = pending_connect;  // no xCreate: eponymous only
    m.xBestIndex = pending_best_index;
    m.xDisconnect = pending_disconnect;
    m.xOpen = pending_open;
    m.xClose = pending_close;
    m.xFilter = pending_filter;
    m.xNext = pending_next;
    m.xEof = pending_eof;
    m.xColumn = pending_column;
    m.xRowid = pending_rowid;
    return m;
  }();
  return module;
}

// Registers convfail_pending on the connection unless it is there.
void register_pending(Db& db) {
  sqlite3_stmt* probe = nullptr;
  int rc =
      sqlite3_prepare_v2(db.handle(), "SELECT 1 FROM convfail_pending(NULL)", -1, &probe, nullptr);
  sqlite3_finalize(probe);
  if (rc == SQLITE_OK) return;
  if (sqlite3_create_module_v2(db.handle(), "convfail_pending", &pending_module(), nullptr,
                               nullptr) != SQLITE_OK)
    db.fail("registering convfail_pending");
}

}  // namespace

// The rows bulk mode keeps for flush(), and the statements that move them into the store.
struct IssueStore::Staging {
  explicit Staging(Db& db) : next_issue_id(db, "SELECT coalesce(max(id), 0) + 1 FROM main.issues") {
    // Ids were assigned in order from max(id)+1, as SQLite would have; comments and events keep
    // their order.
    moves.emplace_back(
        db,
        "INSERT INTO main.issues (id, repo_id, number, github_id, title, body, state, author, "
        "author_association, created_at, updated_at, closed_at, html_url, is_pull_request, "
        "comment_count, has_fix_link, raw_json, body_truncated) SELECT c0, c1, c2, c3, c4, c5, "
        "c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17 FROM convfail_pending(?1)");
    moves.emplace_back(db,
                       "INSERT OR IGNORE INTO main.issue_labels (issue_id, name) "
                       "SELECT c0, c1 FROM convfail_pending(?1)");
    moves.emplace_back(
        db,
        "INSERT INTO main.comments (issue_id, position, github_id, author, author_association, "
        "created_at, updated_at, body, raw_json, body_truncated) SELECT c0, c1, c2, c3, c4, c5, "
        "c6, c7, c8, c9 FROM convfail_pending(?1)");
    moves.emplace_back(
        db,
        "INSERT INTO main.timeline_events (issue_id, position, event, actor, created_at, "
        "commit_id, source_repo, source_number, source_is_pull_request, source_state, raw_json) "
        "SELECT c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10 FROM convfail_pending(?1)");
  }
  bool holds(std::int64_t issue_id) const { return issue_id >= first_id && issue_id < next_id; }
  std::size_t size() const { return static_cast<std::size_t>(next_id - first_id); }

  PendingRows issues{18}, labels{2}, comments{10}, events{11};  // in the order of `moves`
  Stmt next_issue_id;
  std::vector<Stmt> moves;
  std::size_t batch = 0;
  // Pending issues have the ids [first_id, next_id): the first of a batch takes the store's
  // max(id) + 1 as it is then (another process may have added issues since the last batch).
  std::int64_t first_id = 0, next_id = 0;
  std::set<std::pair<std::int64_t, std::int64_t>> keys;  // pending (repo_id, number)
  static constexpr std::size_t kFixLinkColumn = 15;      // of `issues`
};

void IssueStore::begin_bulk(std::size_t batch) {
  if (staging_) return;
  register_pending(db_);
  staging_ = std::make_unique<Staging>(db_);
  staging_->batch = batch ? batch : 1;
}

std::size_t IssueStore::pending() const {
  return staging_ ? staging_->size() : 0;
}

void IssueStore::flush() {
  if (!staging_ || staging_->size() == 0) return;
  Staging& st = *staging_;
  // Whether the moves succeed or not (the caller's transaction is then rolled back), the rows
  // and their ids are given up.
  struct Clear {
    Staging& st;
    ~Clear() {
      for (PendingRows* rows : {&st.issues, &st.labels, &st.comments, &st.events}) rows->clear();
      st.first_id = st.next_id;
      st.keys.clear();
    }
  } clear{st};
  PendingRows* rows[] = {&st.issues, &st.labels, &st.comments, &st.events};
  for (std::size_t i = 0; i < st.moves.size(); ++i) {
    if (rows[i]->rows() == 0) continue;
    if (sqlite3_bind_pointer(st.moves[i].handle(), 1, rows[i], kPendingPointer, nullptr) !=
        SQLITE_OK)
      db_.fail("bind");
    st.moves[i].run();
  }
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

  if (staging_ && !existing) {
    if (staging_->size() == 0) {
      staging_->next_issue_id.step();
      staging_->first_id = staging_->next_id = staging_->next_issue_id.int64(0);
      staging_->next_issue_id.reset();
    }
    *issue_id = staging_->next_id++;
    staging_->keys.insert({repo_id, r.number});
    staging_->issues.add(*issue_id)
        .add(repo_id)
        .add(r.number)
        .add(r.github_id)
        .add(std::string_view(r.title))
        .add(r.body)
        .add(r.state)
        .add(r.author)
        .add(r.author_association)
        .add(r.created_at)
        .add(r.updated_at)
        .add(r.closed_at)
        .add(r.html_url)
        .add(static_cast<std::int64_t>(r.is_pull_request))
        .add(r.comment_count)
        .add(std::int64_t{0})  // has_fix_link: write_timeline sets it
        .add(std::string_view(r.raw_json))
        .add(static_cast<std::int64_t>(r.body_truncated));
    for (const std::string& name : r.labels)
      staging_->labels.add(*issue_id).add(std::string_view(name));
    return UpsertResult::kInserted;
  }

  Stmt& st = existing ? update_issue_ : insert_issue_;
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
  st.run();
  if (!existing) *issue_id = db_.last_insert_id();

  if (existing) delete_labels_.bind(1, *issue_id).run();
  for (const std::string& name : r.labels) insert_label_.bind(1, *issue_id).bind(2, name).run();
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
  std::int64_t pos = 0;
  if (staged) {
    for (const CommentRecord& c : comments) {
      staging_->comments.add(issue_id)
          .add(pos++)
          .add(c.github_id)
          .add(c.author)
          .add(c.author_association)
          .add(c.created_at)
          .add(c.updated_at)
          .add(c.body)
          .add(std::string_view(c.raw_json))
          .add(static_cast<std::int64_t>(c.body_truncated));
    }
    return true;
  }
  for (const CommentRecord& c : comments) {
    insert_comment_.bind(1, issue_id)
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
  std::int64_t fix = has_fix_link ? 1 : 0;
  std::int64_t pos = 0;
  if (staged) {
    for (const EventRecord& e : events) {
      staging_->events.add(issue_id)
          .add(pos++)
          .add(e.event)
          .add(e.actor)
          .add(e.created_at)
          .add(e.commit_id)
          .add(e.source_repo)
          .add(e.source_number)
          .add(e.source_is_pull_request)
          .add(e.source_state)
          .add(std::string_view(e.raw_json));
    }
    Cell& cell = staging_->issues.cells[static_cast<std::size_t>(issue_id - staging_->first_id) *
                                            staging_->issues.width +
                                        Staging::kFixLinkColumn];
    cell.i = fix;
    return true;
  }
  for (const EventRecord& e : events) {
    insert_event_.bind(1, issue_id)
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
  set_fix_link_.bind(1, fix).bind(2, issue_id).run();
  return true;
}

}  // namespace convfail
