// An issue object read into the values the issue store writes (issue_store.h): checked against
// the schema (issue_schema.h) and converted once, with no JSON left to walk. `import` converts
// every object while it checks the files and writes the records later, so it parses each object
// once; the store's JSON calls (upsert_issue, store_comments, store_timeline) convert, then write.
// Also the readers of GitHub's shapes the crawler shares (pull requests, labels, timeline actors,
// fix links).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/issue_schema.h"
#include "core/json_util.h"

namespace convfail {

// One comment as stored (the comments table's columns).
struct CommentRecord {
  std::optional<std::int64_t> github_id;
  std::optional<std::string> author, author_association, created_at, updated_at, body;
  std::string raw_json;  // the object, its body cut when truncated
  bool body_truncated = false;
};

// One timeline event as stored (the timeline_events table's columns).
struct EventRecord {
  std::optional<std::string> event, actor, created_at, commit_id, source_repo, source_state;
  std::optional<std::int64_t> source_number, source_is_pull_request;
  std::string raw_json;
};

// One issue as stored: the issues row, its labels, and its embedded thread when it has one.
struct IssueRecord {
  std::string repo;
  std::int64_t number = 0;
  std::optional<std::int64_t> github_id, comment_count;
  std::string title;
  std::optional<std::string> body, state, author, author_association, created_at, updated_at,
      closed_at, html_url;
  bool is_pull_request = false;
  bool body_truncated = false;
  std::string raw_json;  // the object without embedded comments and timeline
  std::vector<std::string> labels;
  std::optional<std::vector<CommentRecord>> comments;  // an embedded array of comments
  std::optional<std::vector<EventRecord>> timeline;    // an embedded timeline (not null)
  bool has_fix_link = false;                           // of `timeline`, for `repo`

  // Heap and object bytes this record holds (what import counts against its memory bound).
  std::size_t bytes() const;
};

// Checks an issue object with its embedded comments and timeline as the store does (the
// schema, raw sizes) and converts it. `raw_text`, when given, is the object's JSON text as
// received, kept as raw_json instead of re-serialising (only valid without embedded comments
// or timeline). `repo_of` names the repository; it is called once the object passed its own
// checks, so the object's errors come first. Throws UserError("FIELD: what is wrong").
IssueRecord issue_record(const Json& issue, std::optional<std::string_view> raw_text,
                         const FieldLimits& limits,
                         const std::function<std::string(const Json&)>& repo_of);

// Checks and converts a thread fetched on its own (the crawler's): comments, timeline events.
std::vector<CommentRecord> comment_records(const Json& comments, const FieldLimits& limits);
std::vector<EventRecord> event_records(const Json& events, const FieldLimits& limits);

// Whether a timeline links the issue to a fix (the study's data-availability filter): closed with
// a commit_id, referenced with a commit_id, cross-referenced from a closed issue or pull request
// of the same repository, or connected.
bool timeline_has_fix_link(const std::string& repo, const Json& events);

// Whether a REST issue object is a pull request: a "pull_request" member that is not null and,
// when an object, has a non-null value. Dumps in the pre-2014 API format give every plain issue
// {"html_url": null, "diff_url": null, "patch_url": null}: not a pull request.
bool is_pull_request(const Json& issue);

// Who did a timeline event and when: actor.login and created_at, or for the events without
// them the real fields: "committed" (author/committer name, email or login; author.date or
// committer.date), "reviewed" (user.login, submitted_at), "line-commented" (its first nested
// comment's user.login and created_at).
std::pair<std::optional<std::string>, std::optional<std::string>> timeline_actor_and_date(
    const Json& event);

// Label names of an issue: ["name", ...] (flattened) or [{"name": ...}, ...] (REST).
std::vector<std::string> issue_label_names(const Json& issue);

// "owner/name" from a REST issue's repository_url or html_url; nullopt when neither parses.
std::optional<std::string> repo_from_issue_urls(const Json& issue);

}  // namespace convfail
