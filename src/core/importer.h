// `convfail import`: loads issue dumps (JSON array of REST issues, or JSONL in REST or flattened
// shape with embedded comments/timeline) into the store.
#pragma once

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
  std::int64_t total() const { return inserted + updated + unchanged + stale; }
};

struct ImportOptions {
  // Repository for objects that carry neither "repo" nor repository_url/html_url.
  std::optional<std::string> default_repo;
  // Called after each issue with (file, issues so far in the file); may be empty.
  std::function<void(const std::string&, std::int64_t)> progress;
  // Size limit of bodies and other strings, and whether long bodies are cut or refused.
  FieldLimits limits;
};

// Imports all files in one transaction: either every file is stored or, on the first error,
// nothing is, and a UserError "FILE:LINE: FIELD: what is wrong" is thrown. Every object is
// checked against the schema of core/issue_schema.h; a leading UTF-8 BOM is skipped; JSON nested
// deeper than kMaxJsonDepth is refused before parsing.
ImportCounts import_files(Db& db, const std::vector<std::string>& paths,
                          const ImportOptions& options = {});

// Splits the text of a JSON array into its top-level elements: (1-based line, element text).
// Throws UserError("line N: ...") when the text is not an array of well-delimited values.
std::vector<std::pair<std::int64_t, std::string_view>> split_json_array(std::string_view text);

}  // namespace convfail
