// Bulk readers of the issue store's comments and labels, for modules that scan issue text
// (classifier, artifact scan, script repro): they read through these, not SQL (core owns them).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/db.h"

namespace convfail {

struct CommentRow {
  std::int64_t issue_id = 0;
  std::int64_t position = 0;
  std::string author;              // "" when unknown
  std::string author_association;  // ""
  std::string body;                // ""
};

// Calls `visit` with each stored comment by issue id then position: all issues', or only
// `issue_id`'s. One query, rows streamed (the classifier reads every issue's in one pass).
void for_each_comment(Db& db, std::optional<std::int64_t> issue_id,
                      const std::function<void(CommentRow&&)>& visit);

// Calls `visit(issue_id, name)` with every issue's labels, by issue id then name, in one query.
void for_each_issue_label(Db& db, const std::function<void(std::int64_t, std::string&&)>& visit);

}  // namespace convfail
