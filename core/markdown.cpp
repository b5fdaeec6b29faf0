#include "core/markdown.h"

#include "core/text.h"

namespace convfail {
namespace {

struct Fence {
  char ch = 0;
  std::size_t length = 0;  // number of fence characters
  std::size_t indent = 0;  // spaces before them
  std::string_view rest;   // what follows them on the line
};

// A fence line: up to 3 columns of indent, then 3+ backticks or tildes.
bool parse_fence(std::string_view line, Fence* f) {
  if (indent_columns(line) > 3) return false;
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || (line[i] != '`' && line[i] != '~')) return false;
  std::size_t n = 0;
  while (i + n < line.size() && line[i + n] == line[i]) ++n;
  if (n < 3) return false;
  f->ch = line[i];
  f->length = n;
  f->indent = i;
  f->rest = line.substr(i + n);
  return true;
}

bool opens(std::string_view line, Fence* f) {
  if (!parse_fence(line, f)) return false;
  // A backtick fence's info string cannot hold a backtick (that is inline code: ```a```).
  return !(f->ch == '`' && f->rest.find('`') != std::string_view::npos);
}

bool closes(std::string_view line, const Fence& open) {
  Fence f;
  return parse_fence(line, &f) && f.ch == open.ch && f.length >= open.length && is_blank(f.rest);
}

// The line with up to `columns` leading spaces removed (content of an indented fence).
std::string_view strip_spaces(std::string_view line, std::size_t columns) {
  std::size_t cut = 0;
  while (cut < line.size() && cut < columns && line[cut] == ' ') ++cut;
  return line.substr(cut);
}

// The line with its first 4 columns of whitespace removed (content of an indented block).
std::string_view strip_indent(std::string_view line) {
  std::size_t cut = 0, col = 0;
  while (cut < line.size() && col < 4 && (line[cut] == ' ' || line[cut] == '\t')) {
    col += line[cut] == '\t' ? 4 : 1;
    ++cut;
  }
  return line.substr(cut);
}

void add_line(std::string& code, std::string_view line) {
  code.append(line.data(), line.size());
  code += '\n';
}

}  // namespace

std::size_t indent_columns(std::string_view line) {
  std::size_t n = 0;
  for (char c : line) {
    if (c == ' ')
      ++n;
    else if (c == '\t')
      n += 4;
    else
      break;
  }
  return n;
}

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

std::vector<std::string_view> markdown_lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    start = nl + 1;
  }
  return out;
}

MarkdownSplit split_markdown_code(std::string_view text) {
  MarkdownSplit s;
  s.lines = markdown_lines(text);
  const auto& lines = s.lines;
  const std::size_t n = lines.size();
  // The empty piece after a final newline is not content of a fence left open.
  const std::size_t content_end = n > 0 && !text.empty() && text.back() == '\n' ? n - 1 : n;
  s.in_code.assign(n, false);
  for (std::size_t i = 0; i < n;) {
    Fence open;
    if (opens(lines[i], &open)) {
      MarkdownCodeBlock b;
      b.fenced = true;
      b.info = trim(open.rest, " \t");
      b.first_line = i;
      std::size_t j = i + 1;
      while (j < n && !closes(lines[j], open)) {
        if (j < content_end) add_line(b.code, strip_spaces(lines[j], open.indent));
        ++j;
      }
      b.closed = j < n;
      b.end_line = b.closed ? j + 1 : n;
      for (std::size_t k = i; k < b.end_line; ++k) s.in_code[k] = true;
      i = b.end_line;
      s.blocks.push_back(std::move(b));
      continue;
    }
    bool after_blank = i == 0 || is_blank(lines[i - 1]);
    if (after_blank && !is_blank(lines[i]) && indent_columns(lines[i]) >= 4) {
      MarkdownCodeBlock b;
      b.first_line = i;
      std::size_t last = i;  // trailing blank lines are not part of the block
      for (std::size_t j = i; j < n && (is_blank(lines[j]) || indent_columns(lines[j]) >= 4); ++j)
        if (!is_blank(lines[j])) last = j;
      for (std::size_t k = i; k <= last; ++k) {
        add_line(b.code, strip_indent(lines[k]));
        s.in_code[k] = true;
      }
      b.end_line = last + 1;
      i = b.end_line;
      s.blocks.push_back(std::move(b));
      continue;
    }
    ++i;
  }
  return s;
}

std::string fence_language(std::string_view info) {
  std::string t = trim(info, " \t");
  return lower(std::string_view(t).substr(0, t.find_first_of(" \t{")));
}

}  // namespace convfail
