// The text of one issue as the classifier reads it: title, body, labels, comments with their
// authors. Loaded from the store or built from a flattened/REST JSON object (tests, benchmark).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"
#include "core/json_util.h"

namespace convfail::classifier {

struct CommentText {
  std::string author;
  std::string author_association;  // OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, "" unknown
  std::string body;
};

struct IssueText {
  std::int64_t issue_id = 0;
  std::string repo;  // owner/name
  std::int64_t number = 0;
  std::string title;
  std::string body;
  std::string author;
  std::vector<std::string> labels;
  std::vector<CommentText> comments;
};

// Builds an IssueText from a flattened or REST issue object; `repo` wins over the object's own.
IssueText issue_text_from_json(const Json& issue, const std::string& repo = "");

// Loads every stored issue (pull requests excluded), or only those of `repos` (owner/name,
// case-insensitive) when it is not empty, in (repo, number) order.
std::vector<IssueText> load_issue_texts(Db& db, const std::vector<std::string>& repos = {});

// Loads repo#number; nullopt when it is not stored.
std::optional<IssueText> load_issue_text(Db& db, const std::string& repo, std::int64_t number);

}  // namespace convfail::classifier
