// The one Markdown code-block splitter: fenced blocks (``` or ~~~, three or more, closed by a line
// of the same character at least as long), indented blocks (4+ columns after a blank line or at
// the start) and the prose around them. One pass over the lines, no regex, no recursion: linear in
// the text's size whatever it holds.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace convfail {

struct MarkdownCodeBlock {
  bool fenced = false;
  std::string info;    // a fence's info string, trimmed, case kept ("python title=x"); "" otherwise
  std::string code;    // the content lines, each followed by '\n'
  bool closed = true;  // false for a fence left open: it runs to the end of the text
  // Lines [first_line, end_line) of markdown_lines(text), fences included.
  std::size_t first_line = 0, end_line = 0;
};

struct MarkdownSplit {
  std::vector<std::string_view> lines;  // markdown_lines(text): views into the parsed text
  std::vector<MarkdownCodeBlock> blocks;
  std::vector<bool> in_code;  // per line: part of a code block (fences included)
};

// The text's lines without their "\n" or "\r\n". A text ending in "\n" yields a last empty line.
std::vector<std::string_view> markdown_lines(std::string_view text);

// The code blocks of a Markdown text, in order. Views in the result point into `text`.
MarkdownSplit split_markdown_code(std::string_view text);

// Columns of leading whitespace, a tab counting 4 (the indentation rule of the splitter).
std::size_t indent_columns(std::string_view line);

// Whether a line holds only spaces and tabs.
bool is_blank(std::string_view line);

// The first word of a fence's info string, lower-cased ("Python title=x" -> "python").
std::string fence_language(std::string_view info);

}  // namespace convfail
