#include <doctest/doctest.h>

#include "views/highlight.h"

using convfail::classifier::StoredEvidence;
using convfail::views::highlight_ranges;
using convfail::views::utf16_index;

namespace {
StoredEvidence ev(std::string field, std::int64_t index, std::int64_t start, std::int64_t end,
                  std::string text, std::string rule = "r") {
  StoredEvidence e;
  e.dimension = "symptom";
  e.rule = std::move(rule);
  e.field = std::move(field);
  e.field_index = index;
  e.span_start = start;
  e.span_end = end;
  e.matched_text = std::move(text);
  return e;
}
}  // namespace

TEST_CASE("highlight ranges: exact spans, first occurrences, merged, one-byte dropped") {
  const std::string body = "it crashes: Segmentation fault (core dumped)";
  auto r =
      highlight_ranges(body, "body", 0,
                       {ev("body", 0, 3, 10, "crashes", "a"),
                        // overlapping the first: merged, both rules named once
                        ev("body", 0, 6, 11, "shes:", "b"), ev("body", 0, 3, 10, "crashes", "a"),
                        // on a derived field: the first occurrence of its text
                        ev("error_line", 0, 0, 18, "Segmentation fault", "c"),
                        // a span that no longer holds its text (another comment): not here
                        ev("body", 0, 0, 2, "xx", "d"),
                        // one byte: nothing useful to mark
                        ev("body", 0, 0, 1, "i", "e")});
  REQUIRE(r.size() == 2);
  CHECK(r[0].start == 3);
  CHECK(r[0].end == 11);
  CHECK(r[0].rules == "symptom: a, symptom: b");
  CHECK(body.substr(r[1].start, r[1].end - r[1].start) == "Segmentation fault");
  CHECK(r[1].rules == "symptom: c");
  // Title evidence marks only the title; a comment's span only its own comment.
  CHECK(highlight_ranges("crashes", "body", 0, {ev("title", 0, 0, 7, "crashes")}).empty());
  CHECK(
      highlight_ranges("abc crashes", "comment", 1, {ev("comment", 1, 4, 11, "crashes")}).size() ==
      1);
  CHECK(
      highlight_ranges("abc crashes", "comment", 2, {ev("comment", 1, 4, 11, "crashes")}).size() ==
      1);  // found by its text instead
  CHECK(highlight_ranges("abc", "comment", 2, {ev("comment", 1, 0, 3, "abd")}).empty());
}

TEST_CASE("utf16_index counts what JavaScript counts") {
  const std::string s = "Caf\xc3\xa9 \xf0\x9f\x98\x80 x";  // "Café 😀 x"
  CHECK(utf16_index(s, 0) == 0);
  CHECK(utf16_index(s, 5) == 4);   // past "Café"
  CHECK(utf16_index(s, 11) == 8);  // past the emoji (a surrogate pair) and the blank
  CHECK(utf16_index(s, 100) == 9);
}
