// The issue store: idempotent upserts of issues, labels, comments and timeline events from
// GitHub REST objects or the flattened dump shape. Shared by `import` and the crawler.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/db.h"
#include "core/issue_record.h"
#include "core/issue_schema.h"
#include "core/json_util.h"

namespace convfail {

enum class UpsertResult { kInserted, kUpdated, kUnchanged, kStale };

class IssueStore {
 public:
  explicit IssueStore(Db& db);
  ~IssueStore();

  // What is accepted (core/issue_schema.h): every object is validated before it is stored, and
  // a UserError("FIELD: what is wrong") thrown. Default: bodies over 1 MB are refused.
  void set_limits(const FieldLimits& limits) { limits_ = limits; }

  // Repository id for "owner/name" (UserError unless valid_repo_name), created on first use.
  std::int64_t repository_id(const std::string& full_name);

  // A repository now answering as `new_name` (the crawler's record_rename, which keeps the old
  // name as an alias): when `new_name` is stored as another row, that row (`old_name`'s is left
  // as it is); else `old_name`'s row takes the new name; else a new row. Sets its GitHub id when
  // given and returns its id. Names are not validated: `new_name` comes from GitHub.
  std::int64_t rename_repository(const std::string& old_name, const std::string& new_name,
                                 std::optional<std::int64_t> github_id);

  // Upserts one issue object (REST or flattened shape) of repository `repo`. A newer updated_at
  // replaces the stored copy, an older one is ignored (kStale), an identical one changes nothing.
  // Throws UserError when the object breaks the schema (issue_schema.h). Embedded
  // "comments"/"timeline" arrays are NOT handled here (see store_comments / store_timeline). Sets
  // *issue_id. `raw_text`, when given, is the object's JSON text as received and is stored as
  // raw_json instead of re-serialising `issue` (only valid when it holds no embedded
  // comments/timeline).
  UpsertResult upsert_issue(const std::string& repo, const Json& issue, std::int64_t* issue_id,
                            std::optional<std::string_view> raw_text = std::nullopt);

  // Replaces an issue's comments with `comments` (REST or flattened objects) unless they are the
  // same as stored. Returns true when something changed.
  bool store_comments(std::int64_t issue_id, const Json& comments);

  // Replaces an issue's timeline with `events` unless unchanged, and recomputes has_fix_link.
  bool store_timeline(std::int64_t issue_id, const std::string& repo, const Json& events);

  // The same three writes from records already checked and converted (issue_record.h), which is
  // what the JSON calls above do after converting: import converts while it checks its files.
  // write_issue writes the issue and its labels, not its embedded thread.
  UpsertResult write_issue(const IssueRecord& issue, std::int64_t* issue_id);
  bool write_comments(std::int64_t issue_id, const std::vector<CommentRecord>& comments);
  bool write_timeline(std::int64_t issue_id, const std::vector<EventRecord>& events,
                      bool has_fix_link);

  // The issue id of repo#number, if stored.
  std::optional<std::int64_t> find_issue(const std::string& repo, std::int64_t number);

  // Bulk mode, for a caller that writes in transactions (the importer): new issues and their
  // labels, comments and events wait in memory (copied) and are moved into the store by flush()
  // with one INSERT ... SELECT per table, every `batch` issues, from a virtual table of this
  // connection that reads them (convfail_pending). Row-by-row inserts would make FTS5 flush its
  // index at every statement (it syncs on each statement savepoint), which cost ~80% of import
  // time. The caller MUST call flush() before each commit. The statements are prepared once and
  // reused by every batch.
  void begin_bulk(std::size_t batch = 20000);
  void flush();
  // Issues waiting for flush().
  std::size_t pending() const;

 private:
  struct Staging;

  Db& db_;
  FieldLimits limits_;
  std::unique_ptr<Staging> staging_;
  std::map<std::string, std::int64_t> repo_ids_;
  Stmt select_issue_;
  Stmt insert_issue_;
  Stmt update_issue_;
  Stmt delete_labels_;
  Stmt insert_label_;
  Stmt select_comments_;
  Stmt delete_comments_;
  Stmt insert_comment_;
  Stmt select_events_;
  Stmt delete_events_;
  Stmt insert_event_;
  Stmt set_fix_link_;
};

}  // namespace convfail
