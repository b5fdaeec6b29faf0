// `convfail import`: loads issue dumps (JSON array of REST issues, or JSONL in REST or flattened
// shape with embedded comments/timeline) into the store.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"
#include "core/issue_schema.h"

namespace convfail {

struct ImportCounts {
  std::int64_t inserted = 0;
  std::int64_t updated = 0;
  std::int64_t unchanged = 0;
  std::int64_t stale = 0;  // older than the stored copy, ignored
  std::int64_t pull_requests = 0;
  std::int64_t comment_sets_changed = 0;
  std::int64_t timelines_changed = 0;
  std::int64_t transactions = 0;         // write transactions (slices) the import took
  std::int64_t largest_transaction = 0;  // issues written by the largest one
  std::int64_t total() const { return inserted + updated + unchanged + stale; }
};

struct ImportOptions {
  // Repository for objects that carry neither "repo" nor repository_url/html_url.
  std::optional<std::string> default_repo;
  // Called after each issue with (file, issues so far in the file); may be empty.
  std::function<void(const std::string&, std::int64_t)> progress;
  // Size limit of bodies and other strings, and whether long bodies are cut or refused.
  FieldLimits limits;
  // Bytes of checked objects kept for the writes (kImportKeptBytes; tests set less).
  std::size_t kept_bytes = 0;
};

// The writes of an import go in slices: each is one short transaction of about kImportSlice
// (the number of objects of a slice follows how long the last one took to write, between the
// bounds below), so a label post or another job gets the database between two slices, as
// between classify's.
inline constexpr std::chrono::milliseconds kImportSlice{100};
inline constexpr std::size_t kImportSliceMinIssues = 50;
inline constexpr std::size_t kImportSliceMaxIssues = 5000;

// During an import SQLite's automatic checkpoint (every 1,000 WAL pages, run inside the COMMIT of
// the slice that crossed it, so that slice took longer and the next one was cut) is replaced by
// one between slices once the WAL has grown by this many bytes since the last, and one at the end
// (counted in the import's time). As often as SQLite's with 16 KiB pages: a larger WAL (64 MB
// measured no less CPU) would leave more to copy to whichever writer checkpoints next, a label
// post of serve included. A passive checkpoint takes no lock that a writer or reader waits for.
inline constexpr std::size_t kImportCheckpointBytes = std::size_t{16} << 20;

// The check pass keeps each object converted into the values the store writes (IssueRecord),
// so it is parsed once; past this many bytes of records (ImportOptions::kept_bytes when set)
// the rest is checked, not kept, and parsed again when it is written. 100,000 issues of the
// benchmark's shape (a 100-word body) keep about 170 MB.
inline constexpr std::size_t kImportKeptBytes = std::size_t{512} << 20;

// Imports the files in two passes. First every object of every file is parsed, checked against
// the schema of core/issue_schema.h as the store checks it and converted (issue_record), writing
// nothing: on the first error a UserError "FILE:LINE: FIELD: what is wrong" is thrown and the
// database is unchanged. Then the records are written in short transactions (slices, above); a
// failure of the database itself half-way leaves the slices before it stored, which a
// re-import completes (import is idempotent). A leading UTF-8 BOM is skipped; JSON nested
// deeper than kMaxJsonDepth is refused before parsing.
ImportCounts import_files(Db& db, const std::vector<std::string>& paths,
                          const ImportOptions& options = {});

// Splits the text of a JSON array into its top-level elements: (1-based line, element text).
// Throws UserError("line N: ...") when the text is not an array of well-delimited values.
std::vector<std::pair<std::int64_t, std::string_view>> split_json_array(std::string_view text);

}  // namespace convfail
