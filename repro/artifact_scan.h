// Finds artifacts in issue text: links to model files and archives, GitHub attachment URLs,
// links to file hosts (recorded, not fetched) and code blocks that build or export a model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"

namespace convfail::repro {

struct FoundArtifact {
  std::string kind;          // model | archive | script | external_link
  std::string source_field;  // body | comment:<position>
  std::string url;           // links
  std::string code;          // scripts
};

// All artifacts in one text (Markdown), in order of appearance, without duplicates.
std::vector<FoundArtifact> scan_text(const std::string& text, const std::string& source_field);

struct ScanCounts {
  int issues = 0;
  int found = 0;
  int inserted = 0;  // new rows (a rescan inserts nothing new)
};

// Scans the body and comments of one issue (or all when issue_id is empty) and stores new
// artifacts rows in one transaction.
ScanCounts scan_issues(Db& db, std::optional<std::int64_t> issue_id);

}  // namespace convfail::repro
