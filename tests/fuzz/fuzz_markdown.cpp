// The Markdown code-block splitter (core/markdown) on any text. Invariants: one in_code flag per
// line; blocks in order, inside the text's lines, not overlapping, each line of a block flagged;
// a fenced block's code is its content lines, an open fence runs to the end.
#include "core/markdown.h"
#include "fuzz_check.h"

using namespace convfail;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  MarkdownSplit s = split_markdown_code(text);
  FUZZ_CHECK(s.lines.size() == markdown_lines(text).size());
  FUZZ_CHECK(s.in_code.size() == s.lines.size());
  std::size_t line_bytes = 0;
  for (std::string_view l : s.lines) {
    FUZZ_CHECK(l.data() >= text.data() && l.data() + l.size() <= text.data() + text.size());
    FUZZ_CHECK(l.find('\n') == std::string_view::npos);
    line_bytes += l.size();
  }
  FUZZ_CHECK(line_bytes <= text.size());
  std::size_t end = 0, code_lines = 0;
  for (const MarkdownCodeBlock& b : s.blocks) {
    FUZZ_CHECK(b.first_line >= end && b.first_line < b.end_line && b.end_line <= s.lines.size());
    for (std::size_t i = b.first_line; i < b.end_line; ++i) FUZZ_CHECK(s.in_code[i]);
    if (!b.closed) FUZZ_CHECK(b.fenced && b.end_line == s.lines.size());
    FUZZ_CHECK(b.code.size() <= text.size() + (b.end_line - b.first_line));
    code_lines += b.end_line - b.first_line;
    end = b.end_line;
  }
  std::size_t flagged = 0;
  for (bool f : s.in_code) flagged += f ? 1 : 0;
  FUZZ_CHECK(flagged == code_lines);
  for (const MarkdownCodeBlock& b : s.blocks)
    if (b.fenced) FUZZ_CHECK(fence_language(b.info).find(' ') == std::string::npos);
  return 0;
}
