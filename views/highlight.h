// Where the classifier's evidence lies in one displayed text (title, body or a comment): the one
// computation behind the terminal's marks (cli/issue_view) and the web's highlights
// (views/dossier's JSON, UTF-16 offsets for the page).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "classifier/issue_output.h"

namespace convfail::views {

struct HighlightRange {
  std::size_t start = 0, end = 0;  // byte offsets into the text, end exclusive
  std::string rules;               // "dimension: rule", comma-separated, each once
};

// The ranges of `evidence` in `text` shown as `field` ("title", "body" or "comment") number
// `index` (comments: their position): the exact span of evidence on this field when it still
// holds the matched text, else (evidence on a derived field such as code or traceback, never the
// title) the first occurrence of a matched text of at least 3 bytes. Sorted; overlapping and
// touching ranges merged; one-byte ranges (priors on a first letter) dropped.
std::vector<HighlightRange> highlight_ranges(
    const std::string& text, const std::string& field, std::int64_t index,
    const std::vector<classifier::StoredEvidence>& evidence);

// The UTF-16 index of byte offset `byte` in UTF-8 `text` (what JavaScript strings count).
std::size_t utf16_index(const std::string& text, std::size_t byte);

}  // namespace convfail::views
