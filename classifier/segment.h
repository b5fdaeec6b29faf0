// Splits an issue into the fields rules look at: title, body prose, code blocks (fenced or
// indented), Python tracebacks, the last error line of each traceback, the reporter's comments,
// other people's comments (maintainers' apart when author_association says so), GitHub labels.
#pragma once

#include <string>
#include <vector>

#include "classifier/issue_text.h"

namespace convfail::classifier {

// Field kinds, in the order they are stored. Rules name them in their "fields" list.
enum class FieldKind {
  kTitle,
  kBody,               // prose of the body (code blocks and tracebacks removed)
  kCode,               // each fenced or indented code block, in body or comments
  kTraceback,          // each Python traceback (header or "File ..." lines through error line)
  kErrorLine,          // the last line (the exception) of each traceback
  kReporterComment,    // prose of comments by the issue's author
  kComment,            // prose of other comments
  kMaintainerComment,  // prose of comments by OWNER / MEMBER / COLLABORATOR
  kLabel,              // each GitHub label name
};
constexpr int kFieldKindCount = 9;

const char* field_name(FieldKind kind);
// Parses a field name; false when unknown.
bool parse_field_name(const std::string& name, FieldKind* kind);
std::vector<std::string> field_names();

struct Field {
  FieldKind kind;
  int index = 0;     // n-th field of this kind in the issue
  std::string text;  // spans of evidence are byte offsets into this text
};

struct Segments {
  std::vector<Field> fields;
  std::size_t bytes() const;  // total text size
  std::vector<const Field*> of(FieldKind kind) const;
};

Segments segment_issue(const IssueText& issue);

// Exposed for tests: the blocks of one markdown text.
struct MarkdownParts {
  std::string prose;
  std::vector<std::string> code;
  std::vector<std::string> tracebacks;
  std::vector<std::string> error_lines;
};
MarkdownParts split_markdown(const std::string& text);

}  // namespace convfail::classifier
