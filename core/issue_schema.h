// The issue schema: what `import` and the crawler accept before anything is stored (IssueStore
// checks every object with these functions, so both paths share them). Fields not listed are
// kept in raw_json unchecked; every listed field may be missing or null unless said otherwise.
//   number          integer in 1..2^53 (required)
//   repo            "OWNER/NAME": owner 1-39 of [A-Za-z0-9-] not starting with '-', name 1-100
//                   of [A-Za-z0-9-_.],
//                   not "." or ".."
//   title, body, state, author, author_association, html_url, repository_url: strings
//   user            object with a string "login"
//   id              integer
//   labels          array of strings or of objects with a string "name"
//   comments        integer (REST count) or array of comment objects (body, author or
//                   user.login, author_association: strings; id: integer; dates)
//   timeline        array of event objects (event, commit_id: strings; actor: object; dates)
//   created_at, updated_at, closed_at (also in comments and events): ISO-8601 times
// Every string: no NUL character (SQLite and C tools would cut the text there), at most
// FieldLimits::max_field_bytes. Strings are valid UTF-8 (the JSON parser refuses others).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/json_util.h"

namespace convfail {

inline constexpr std::int64_t kMaxIssueNumber = std::int64_t{1} << 53;
// Deeper JSON is refused before parsing (GitHub objects nest about 6 levels).
inline constexpr std::size_t kMaxJsonDepth = 64;

struct FieldLimits {
  std::size_t max_field_bytes = std::size_t{1} << 20;  // --max-field-mb, default 1 MB
  // Bodies of issues and comments over the limit are cut (and flagged) instead of refused.
  bool truncate = false;
};

// GitHub's rules for OWNER/NAME.
bool valid_repo_name(std::string_view full_name);
// UserError("repository: ... is not OWNER/NAME ...") unless valid_repo_name.
void check_repo_name(std::string_view full_name);
// UserError("number: ...") unless `value` is an integer in 1..kMaxIssueNumber.
std::int64_t checked_issue_number(const Json& value);

// Each throws UserError("FIELD: what is wrong"), e.g. "comments[2].created_at: ...".
void validate_issue(const Json& issue, const FieldLimits& limits);
void validate_comments(const Json& comments, const FieldLimits& limits);
void validate_timeline(const Json& events, const FieldLimits& limits);

// Before parsing (which holds a long string two or three times over): refuses JSON text whose
// string literal is so long that even decoded it must exceed limits.max_field_bytes (a JSON
// escape is at most 6 bytes for 1), with UserError("KEY: ..."), KEY being the member name
// before it. Does nothing when limits.truncate (the value is parsed and cut then).
void check_string_lengths(std::string_view text, const FieldLimits& limits);

// Bracket nesting depth of JSON text (brackets inside strings do not count); stops counting
// once past `limit`. Linear, for refusing deep nesting before a recursive parse or dump.
std::size_t json_nesting_depth(std::string_view text, std::size_t limit = kMaxJsonDepth);
// UserError("JSON nested deeper than 64 levels") when json_nesting_depth(text) > kMaxJsonDepth.
void check_json_depth(std::string_view text);

}  // namespace convfail
