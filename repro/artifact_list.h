// The stored artifacts, as `artifacts list` shows them: what was found in which issue, and what
// fetching it gave (status, size, content hash, local path).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"

namespace convfail::repro {

struct StoredArtifact {
  std::int64_t id = 0;
  std::string issue;         // OWNER/REPO#N
  std::string kind;          // model | archive | script | external_link
  std::string source_field;  // body | comment:<position>
  std::optional<std::string> url;
  std::int64_t code_lines = 0;  // scripts: lines of code
  std::optional<std::string> sha256;
  std::optional<std::int64_t> size_bytes;
  std::optional<std::string> local_path;
  std::optional<std::string>
      fetch_status;  // nullopt: not fetched; ok | error:<why> | skipped:<why>
  std::string found_at;
};

// Every stored artifact (of one issue when `issue_id` is given, of one kind when `kind` is), by
// issue then id. Throws UsageError for an unknown kind.
std::vector<StoredArtifact> list_artifacts(Db& db, std::optional<std::int64_t> issue_id,
                                           const std::optional<std::string>& kind);

}  // namespace convfail::repro
