// Bulk readers of the issue store's comments, for modules that scan issue text (artifact scan,
// script repro): they read comments through these, not SQL, since core owns the table.
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

}  // namespace convfail
