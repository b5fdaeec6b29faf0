#include "core/issue_store.h"

#include <re2/re2.h>

#include "core/error.h"
#include "core/issue_schema.h"
#include "core/text.h"

namespace convfail {
namespace {

// A time field as stored: its instant in UTC (core/text utc_time: "+14:00" and "Z" times compare
// by when they happened), or the text as it came when it is no time.
std::optional<std::string> stored_time(const Json& obj, const char* key) {
  std::optional<std::string> t = opt_string(obj, key);
  if (t)
    if (auto utc = utc_time(*t)) return utc;
  return t;
}

// Author: REST user.login, or flattened "author".
std::optional<std::string> author_of(const Json& j) {
  if (auto login = opt_nested_string(j, "user", "login")) return login;
  return opt_string(j, "author");
}

// The raw JSON we keep for an issue: the object without embedded comment/timeline arrays
// (those are stored in their own tables). Serialised key by key rather than copying the object;
// `body`, when given, replaces the object's "body" (a truncated one).
std::string issue_raw(const Json& issue, const std::string* body = nullptr) {
  std::string out = "{";
  for (auto it = issue.begin(); it != issue.end(); ++it) {
    if (it.key() == "timeline" || (it.key() == "comments" && it->is_array())) continue;
    if (out.size() > 1) out += ',';
    out += Json(it.key()).dump();
    out += ':';
    out += body && it.key() == "body" ? Json(*body).dump() : it->dump();
  }
  return out + "}";
}

// A body over the limit (only accepted when truncating): cut it, and say so.
bool truncate_body(std::optional<std::string>& body, const FieldLimits& limits) {
  if (!body || body->size() <= limits.max_field_bytes) return false;
  *body = truncate_utf8(*body, limits.max_field_bytes);
  return true;
}

// A comment's raw_json as stored (its body cut when truncating) and its body.
std::string comment_raw(const Json& c, const FieldLimits& limits, std::optional<std::string>* body,
                        bool* cut) {
  *body = opt_string(c, "body");
  *cut = truncate_body(*body, limits);
  if (!*cut) return c.dump();
  Json copy = c;
  copy["body"] = **body;
  return copy.dump();
}

}  // namespace

std::vector<std::string> issue_label_names(const Json& issue) {
  std::vector<std::string> out;
  auto it = issue.find("labels");
  if (it == issue.end() || !it->is_array()) return out;
  for (const Json& l : *it) {
    if (l.is_string()) {
      out.push_back(l.get<std::string>());
    } else if (l.is_object()) {
      if (auto n = opt_string(l, "name")) out.push_back(*n);
    }
  }
  return out;
}

std::optional<std::string> repo_from_issue_urls(const Json& issue) {
  static const RE2 api(R"(/repos/([^/]+)/([^/?#]+)/?$)");
  static const RE2 html(R"(^https?://[^/]+/([^/]+)/([^/]+)/(?:issues|pull)/\d+)");
  std::string owner, name;
  if (auto u = opt_string(issue, "repository_url")) {
    if (RE2::PartialMatch(*u, api, &owner, &name)) return owner + "/" + name;
  }
  if (auto u = opt_string(issue, "html_url")) {
    if (RE2::PartialMatch(*u, html, &owner, &name)) return owner + "/" + name;
  }
  return std::nullopt;
}

bool is_pull_request(const Json& issue) {
  if (!issue.is_object()) return false;
  auto pr = issue.find("pull_request");
  if (pr == issue.end() || pr->is_null()) return false;
  if (!pr->is_object()) return true;
  for (const Json& v : *pr)
    if (!v.is_null()) return true;
  return false;
}

std::pair<std::optional<std::string>, std::optional<std::string>> timeline_actor_and_date(
    const Json& e) {
  std::optional<std::string> actor = opt_nested_string(e, "actor", "login");
  std::optional<std::string> date = opt_string(e, "created_at");
  std::string event = opt_string(e, "event").value_or("");
  if (event == "committed") {
    for (const char* who : {"author", "committer"}) {
      for (const char* field : {"name", "email", "login"})
        if (!actor) actor = opt_nested_string(e, who, field);
      if (!date) date = opt_nested_string(e, who, "date");
    }
  } else if (event == "reviewed") {
    if (!actor) actor = opt_nested_string(e, "user", "login");
    if (!date) date = opt_string(e, "submitted_at");
  } else if (event == "line-commented") {
    auto c = e.find("comments");
    if (c != e.end() && c->is_array() && !c->empty() && (*c)[0].is_object()) {
      if (!actor) actor = opt_nested_string((*c)[0], "user", "login");
      if (!date) date = opt_string((*c)[0], "created_at");
    }
  }
  return {actor, date};
}

bool timeline_has_fix_link(const std::string& repo, const Json& events) {
  if (!events.is_array()) return false;
  auto same_repo = [&](const std::string& other) { return iequals(repo, other); };
  for (const Json& e : events) {
    if (!e.is_object()) continue;
    std::string event = opt_string(e, "event").value_or("");
    bool has_commit = opt_string(e, "commit_id").has_value();
    if ((event == "closed" || event == "referenced") && has_commit) return true;
    if (event == "connected") return true;
    if (event == "cross-referenced") {
      auto src = e.find("source");
      if (src == e.end() || !src->is_object()) continue;
      auto issue = src->find("issue");
      if (issue == src->end() || !issue->is_object()) continue;
      if (opt_string(*issue, "state").value_or("") != "closed") continue;
      std::optional<std::string> src_repo = opt_nested_string(*issue, "repository", "full_name");
      if (!src_repo) src_repo = repo_from_issue_urls(*issue);
      if (src_repo && same_repo(*src_repo)) return true;
    }
  }
  return false;
}

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

void IssueStore::check_raw_size(const std::string& raw) const {
  // Fields outside the schema are kept in raw_json: bound them too.
  std::size_t limit = limits_.max_field_bytes + (std::size_t{1} << 20);
  if (raw.size() > limit) {
    throw UserError("object: " + std::to_string(raw.size()) +
                    " bytes of JSON (without comments and timeline), over the limit of " +
                    std::to_string(limit) + " bytes (--max-field-mb + 1 MB)");
  }
}

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
        set_fix_link(db, "UPDATE temp.staged_issues SET has_fix_link=? WHERE id=?") {}
  Stmt insert_issue, insert_label, insert_comment, insert_event, set_fix_link;
  std::size_t batch = 0;
  std::int64_t next_id = 0;
  std::set<std::int64_t> ids;                            // staged issue ids
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
  staging_->next_id = db_.scalar("SELECT coalesce(max(id), 0) + 1 FROM main.issues");
}

void IssueStore::flush() {
  if (!staging_ || staging_->ids.empty()) return;
  // Ids were assigned in order from max(id)+1, as SQLite would have; comments and events keep
  // their staging order.
  db_.exec(
      "INSERT INTO main.issues (id, repo_id, number, github_id, title, body, state, author, "
      "author_association, created_at, updated_at, closed_at, html_url, is_pull_request, "
      "comment_count, has_fix_link, raw_json, body_truncated) SELECT id, repo_id, number, "
      "github_id, title, body, state, author, author_association, created_at, updated_at, "
      "closed_at, html_url, is_pull_request, comment_count, has_fix_link, raw_json, "
      "body_truncated FROM temp.staged_issues "
      "ORDER BY id;"
      "INSERT OR IGNORE INTO main.issue_labels (issue_id, name) "
      "SELECT issue_id, name FROM temp.staged_labels;"
      "INSERT INTO main.comments (issue_id, position, github_id, author, author_association, "
      "created_at, updated_at, body, raw_json, body_truncated) SELECT issue_id, position, "
      "github_id, author, author_association, created_at, updated_at, body, raw_json, "
      "body_truncated FROM temp.staged_comments "
      "ORDER BY rowid;"
      "INSERT INTO main.timeline_events (issue_id, position, event, actor, created_at, "
      "commit_id, source_repo, source_number, source_is_pull_request, source_state, raw_json) "
      "SELECT issue_id, position, event, actor, created_at, commit_id, source_repo, "
      "source_number, source_is_pull_request, source_state, raw_json FROM temp.staged_events "
      "ORDER BY rowid;"
      "DELETE FROM temp.staged_issues; DELETE FROM temp.staged_labels;"
      "DELETE FROM temp.staged_comments; DELETE FROM temp.staged_events;");
  staging_->ids.clear();
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

void IssueStore::check(const Json& issue, std::optional<std::string_view> raw_text) const {
  validate_issue(issue, limits_);  // embedded comments and timeline included
  checked_issue_number(issue["number"]);
  std::optional<std::string> body = opt_string(issue, "body");
  bool truncated = truncate_body(body, limits_);
  check_raw_size(truncated  ? issue_raw(issue, &*body)
                 : raw_text ? std::string(*raw_text)
                            : issue_raw(issue));
  auto c = issue.find("comments");
  if (c != issue.end() && c->is_array())
    for (const Json& comment : *c) {
      std::optional<std::string> comment_body;
      bool cut = false;
      check_raw_size(comment_raw(comment, limits_, &comment_body, &cut));
    }
  auto t = issue.find("timeline");
  if (t != issue.end() && t->is_array())
    for (const Json& e : *t) check_raw_size(e.dump());
}

UpsertResult IssueStore::upsert_issue(const std::string& repo, const Json& issue,
                                      std::int64_t* issue_id,
                                      std::optional<std::string_view> raw_text) {
  validate_issue(issue, limits_);
  std::optional<std::int64_t> number = checked_issue_number(issue["number"]);
  std::int64_t repo_id = repository_id(repo);
  std::optional<std::string> updated = stored_time(issue, "updated_at");
  std::optional<std::string> body = opt_string(issue, "body");
  bool truncated = truncate_body(body, limits_);
  std::string raw = truncated  ? issue_raw(issue, &*body)
                    : raw_text ? std::string(*raw_text)
                               : issue_raw(issue);
  check_raw_size(raw);
  if (staging_ &&
      (staging_->ids.size() >= staging_->batch || staging_->keys.count({repo_id, *number}))) {
    flush();  // a full batch, or the same issue twice: let the lookup below see it
  }

  select_issue_.bind(1, repo_id).bind(2, *number);
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
    if (updated && stored_updated) {
      // Instants, not text: a copy stored with an offset by an older version compares right.
      int order = compare_times(*updated, *stored_updated);
      if (order < 0) return UpsertResult::kStale;
      if (order == 0) return UpsertResult::kUnchanged;
    } else if (raw == stored_raw) {
      return UpsertResult::kUnchanged;
    }
  }

  bool staged = staging_ && !existing;
  Stmt& st = existing ? update_issue_ : staged ? staging_->insert_issue : insert_issue_;
  auto comment_count = opt_int(issue, "comments");
  if (!comment_count) {
    auto c = issue.find("comments");
    if (c != issue.end() && c->is_array()) comment_count = static_cast<std::int64_t>(c->size());
  }
  st.bind(1, repo_id)
      .bind(2, *number)
      .bind(3, opt_int(issue, "id"))
      .bind(4, opt_string(issue, "title").value_or(""))
      .bind(5, body)
      .bind(6, opt_string(issue, "state"))
      .bind(7, author_of(issue))
      .bind(8, opt_string(issue, "author_association"))
      .bind(9, stored_time(issue, "created_at"))
      .bind(10, updated)
      .bind(11, stored_time(issue, "closed_at"))
      .bind(12, opt_string(issue, "html_url"))
      .bind(13, static_cast<std::int64_t>(is_pull_request(issue)))
      .bind(14, comment_count)
      .bind(15, raw)
      .bind(17, static_cast<std::int64_t>(truncated));
  if (existing) st.bind(16, *existing);
  if (staged) {
    // The first of a batch: ids follow the store's as it is now (another process may have
    // added issues since the last batch was committed).
    if (staging_->ids.empty())
      staging_->next_id = db_.scalar("SELECT coalesce(max(id), 0) + 1 FROM main.issues");
    *issue_id = staging_->next_id++;
    st.bind(16, *issue_id);
    staging_->ids.insert(*issue_id);
    staging_->keys.insert({repo_id, *number});
  }
  st.run();
  if (!existing && !staged) *issue_id = db_.last_insert_id();

  if (existing) delete_labels_.bind(1, *issue_id).run();
  Stmt& label = staged ? staging_->insert_label : insert_label_;
  for (const std::string& name : issue_label_names(issue))
    label.bind(1, *issue_id).bind(2, name).run();
  return existing ? UpsertResult::kUpdated : UpsertResult::kInserted;
}

bool IssueStore::store_comments(std::int64_t issue_id, const Json& comments) {
  validate_comments(comments, limits_);
  std::vector<std::string> raws;
  std::vector<std::optional<std::string>> bodies;
  std::vector<bool> cut;
  for (const Json& c : comments) {
    std::optional<std::string> body;
    bool was_cut = false;
    raws.push_back(comment_raw(c, limits_, &body, &was_cut));
    bodies.push_back(std::move(body));
    cut.push_back(was_cut);
    check_raw_size(raws.back());
  }
  bool staged = staging_ && staging_->ids.count(issue_id);
  if (staged) {
    if (raws.empty()) return false;  // a staged issue has no stored comments
  } else {
    select_comments_.bind(1, issue_id);
    std::vector<std::string> stored;
    while (select_comments_.step()) stored.push_back(select_comments_.text(0));
    select_comments_.reset();
    if (stored == raws) return false;
    delete_comments_.bind(1, issue_id).run();
  }
  Stmt& insert = staged ? staging_->insert_comment : insert_comment_;
  std::int64_t pos = 0;
  for (const Json& c : comments) {
    insert.bind(1, issue_id)
        .bind(2, pos)
        .bind(3, opt_int(c, "id"))
        .bind(4, author_of(c))
        .bind(5, opt_string(c, "author_association"))
        .bind(6, stored_time(c, "created_at"))
        .bind(7, stored_time(c, "updated_at"))
        .bind(8, bodies[static_cast<std::size_t>(pos)])
        .bind(9, raws[static_cast<std::size_t>(pos)])
        .bind(10, static_cast<std::int64_t>(cut[static_cast<std::size_t>(pos)]))
        .run();
    ++pos;
  }
  return true;
}

bool IssueStore::store_timeline(std::int64_t issue_id, const std::string& repo,
                                const Json& events) {
  validate_timeline(events, limits_);
  std::vector<std::string> raws;
  for (const Json& e : events) {
    raws.push_back(e.dump());
    check_raw_size(raws.back());
  }
  bool staged = staging_ && staging_->ids.count(issue_id);
  if (staged) {
    if (raws.empty()) return false;  // a staged issue has no stored events
  } else {
    select_events_.bind(1, issue_id);
    std::vector<std::string> stored;
    while (select_events_.step()) stored.push_back(select_events_.text(0));
    select_events_.reset();
    if (stored == raws) return false;
    delete_events_.bind(1, issue_id).run();
  }
  Stmt& insert = staged ? staging_->insert_event : insert_event_;
  std::int64_t pos = 0;
  for (const Json& e : events) {
    std::optional<std::string> src_repo, src_state;
    std::optional<std::int64_t> src_number, src_is_pr;
    auto src = e.find("source");
    if (src != e.end() && src->is_object() && src->contains("issue") &&
        (*src)["issue"].is_object()) {
      const Json& si = (*src)["issue"];
      src_repo = opt_nested_string(si, "repository", "full_name");
      if (!src_repo) src_repo = repo_from_issue_urls(si);
      src_number = opt_int(si, "number");
      src_state = opt_string(si, "state");
      src_is_pr = static_cast<std::int64_t>(is_pull_request(si));
    }
    auto [actor, date] = timeline_actor_and_date(e);
    if (date)
      if (auto utc = utc_time(*date)) date = utc;
    insert.bind(1, issue_id)
        .bind(2, pos)
        .bind(3, opt_string(e, "event"))
        .bind(4, actor)
        .bind(5, date)
        .bind(6, opt_string(e, "commit_id"))
        .bind(7, src_repo)
        .bind(8, src_number)
        .bind(9, src_is_pr)
        .bind(10, src_state)
        .bind(11, raws[static_cast<std::size_t>(pos)])
        .run();
    ++pos;
  }
  std::int64_t fix = timeline_has_fix_link(repo, events) ? 1 : 0;
  if (staged) {
    staging_->set_fix_link.bind(1, fix).bind(2, issue_id).run();
  } else {
    set_fix_link_.bind(1, fix).bind(2, issue_id).run();
  }
  return true;
}

}  // namespace convfail
