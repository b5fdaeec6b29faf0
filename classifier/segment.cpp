#include "classifier/segment.h"

#include <cstring>
#include <string_view>

#include "core/markdown.h"
#include "core/text.h"

namespace convfail::classifier {

namespace {

const char* const kNames[kFieldKindCount] = {"title",      "body",
                                             "code",       "traceback",
                                             "error_line", "reporter_comment",
                                             "comment",    "maintainer_comment",
                                             "label"};

std::string_view trim_left(std::string_view s) {
  auto p = s.find_first_not_of(" \t");
  return p == std::string_view::npos ? std::string_view() : s.substr(p);
}

bool is_traceback_header(std::string_view t) {
  return starts_with(t, "Traceback (most recent call last)");
}
bool is_file_line(std::string_view t) {
  return starts_with(t, "File \"");
}

void append_line(std::string& out, std::string_view line) {
  if (!out.empty()) out += '\n';
  out.append(line.data(), line.size());
}

}  // namespace

const char* field_name(FieldKind kind) {
  return kNames[static_cast<int>(kind)];
}

bool parse_field_name(const std::string& name, FieldKind* kind) {
  for (int i = 0; i < kFieldKindCount; ++i) {
    if (name == kNames[i]) {
      *kind = static_cast<FieldKind>(i);
      return true;
    }
  }
  return false;
}

std::vector<std::string> field_names() {
  return {std::begin(kNames), std::end(kNames)};
}

std::size_t Segments::bytes() const {
  std::size_t n = 0;
  for (const auto& f : fields) n += f.text.size();
  return n;
}

std::vector<const Field*> Segments::of(FieldKind kind) const {
  std::vector<const Field*> out;
  for (const auto& f : fields)
    if (f.kind == kind) out.push_back(&f);
  return out;
}

MarkdownParts split_markdown(const std::string& text) {
  MarkdownParts parts;
  MarkdownSplit md = split_markdown_code(text);
  const auto& lines = md.lines;
  const std::size_t n = lines.size();
  const std::vector<bool>& in_code = md.in_code;
  std::vector<bool> in_traceback(n, false);
  for (auto& b : md.blocks) {
    if (!b.code.empty()) b.code.pop_back();  // fields hold the lines without a final newline
    parts.code.push_back(std::move(b.code));
  }

  // Tracebacks anywhere (pasted into prose or inside code): a header or a first `File "..."`
  // line, the indented frame lines, then the first line at or left of the base indent.
  for (std::size_t i = 0; i < n; ++i) {
    std::string_view t = trim_left(lines[i]);
    bool header = is_traceback_header(t);
    if (!header && !is_file_line(t)) continue;
    std::size_t base = indent_columns(lines[i]);
    if (!header) base = base >= 2 ? base - 2 : 0;
    std::size_t j = i + 1;
    std::string tb;
    append_line(tb, lines[i]);
    std::size_t error_at = n;
    for (; j < n; ++j) {
      std::string_view l = lines[j];
      if (is_blank(l)) {
        append_line(tb, l);
        continue;
      }
      std::string_view lt = trim_left(l);
      if (starts_with(lt, "```") || starts_with(lt, "~~~")) break;
      if (indent_columns(l) > base || is_file_line(lt)) {
        append_line(tb, l);
        continue;
      }
      error_at = j;
      break;
    }
    if (error_at < n) {
      append_line(tb, lines[error_at]);
      parts.error_lines.emplace_back(trim_left(lines[error_at]));
      j = error_at + 1;
    }
    // Trailing blank lines are not part of it.
    while (!tb.empty() && (tb.back() == '\n' || tb.back() == ' ')) tb.pop_back();
    for (std::size_t k = i; k < j && k < n; ++k) in_traceback[k] = true;
    parts.tracebacks.push_back(std::move(tb));
    i = j - 1;
  }

  for (std::size_t i = 0; i < n; ++i)
    if (!in_code[i] && !in_traceback[i]) append_line(parts.prose, lines[i]);
  return parts;
}

Segments segment_issue(const IssueText& issue) {
  Segments s;
  int counts[kFieldKindCount] = {};
  auto add = [&](FieldKind kind, std::string text) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) return;
    s.fields.push_back({kind, counts[static_cast<int>(kind)]++, std::move(text)});
  };
  auto add_blocks = [&](MarkdownParts& p) {
    for (auto& c : p.code) add(FieldKind::kCode, std::move(c));
    for (auto& t : p.tracebacks) add(FieldKind::kTraceback, std::move(t));
    for (auto& e : p.error_lines) add(FieldKind::kErrorLine, std::move(e));
  };
  add(FieldKind::kTitle, issue.title);
  MarkdownParts body = split_markdown(issue.body);
  add(FieldKind::kBody, std::move(body.prose));
  add_blocks(body);
  for (const auto& c : issue.comments) {
    MarkdownParts p = split_markdown(c.body);
    FieldKind kind = FieldKind::kComment;
    const std::string& a = c.author_association;
    if (a == "OWNER" || a == "MEMBER" || a == "COLLABORATOR")
      kind = FieldKind::kMaintainerComment;
    else if (!issue.author.empty() && c.author == issue.author)
      kind = FieldKind::kReporterComment;
    add(kind, std::move(p.prose));
    add_blocks(p);
  }
  for (const auto& l : issue.labels) add(FieldKind::kLabel, l);
  return s;
}

}  // namespace convfail::classifier
