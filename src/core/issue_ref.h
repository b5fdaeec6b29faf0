// Issue references as users type them: "owner/name#123", "owner/name/issues/123" or a
// github.com issue/pull URL.
#pragma once

#include <cstdint>
#include <string>

#include "core/db.h"

namespace convfail {

struct IssueRef {
  std::string repo;  // owner/name
  std::int64_t number = 0;
};

// Throws UsageError (exit 2) for a reference that does not parse.
IssueRef parse_issue_ref(const std::string& text);

// The stored issue id of a reference; throws UserError when the issue is not in the store.
std::int64_t require_issue(Db& db, const IssueRef& ref);

}  // namespace convfail
