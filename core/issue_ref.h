// Issue references as users type them. The one parser every command that takes an issue uses:
//   owner/repo#123
//   owner/repo/issues/123   (or /pull/123)
//   https://github.com/owner/repo/issues/123   (or /pull/123; trailing slash, ?query, #fragment)
#pragma once

#include <cstdint>
#include <string>

#include "core/db.h"

namespace convfail {

struct IssueRef {
  std::string repo;  // owner/name
  std::int64_t number = 0;
};

// Owner and repository names hold GitHub's characters only (letters, digits, '-', '_', '.'; not
// "." or ".."), and the number is in 1..2^53 (what a JSON number holds exactly). Throws
// UsageError (exit 2) with one message shape for anything else.
IssueRef parse_issue_ref(const std::string& text);

// "owner/repo#123"
std::string to_string(const IssueRef& ref);

// The issue's page on GitHub: `html_url` when it is a https://github.com/ address, else
// https://github.com/OWNER/REPO/issues/N (flattened imports store no html_url; GitHub redirects
// /issues/N to /pull/N for a pull request). The terminal's issue view and the web page show it.
std::string issue_page_url(const IssueRef& ref, const std::string& html_url = "");

// The stored issue id of a reference; throws UserError when the issue is not in the store.
std::int64_t require_issue(Db& db, const IssueRef& ref);

}  // namespace convfail
