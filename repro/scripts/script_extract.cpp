#include "repro/scripts/script_extract.h"

#include <re2/re2.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "core/markdown.h"
#include "core/text.h"

namespace convfail::repro {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

bool is_repl(const std::vector<std::string>& lines) {
  for (const auto& l : lines)
    if (starts_with(trim(l) + " ", ">>> ")) return true;
  return false;
}

}  // namespace

std::vector<CodeBlock> markdown_code_blocks(const std::string& markdown) {
  std::vector<CodeBlock> blocks;
  for (auto& b : split_markdown_code(markdown).blocks)
    if (b.fenced) blocks.push_back({fence_language(b.info), std::move(b.code)});
  return blocks;
}

bool looks_like_python(const CodeBlock& block) {
  static const std::set<std::string> python_tags = {
      "", "python", "py", "python3", "py3", "ipython", "pycon", "python2", "ipython3"};
  if (!python_tags.count(block.language)) return false;
  static const RE2 traceback_line(R"(^\s*File ".*", line \d+)");
  static const RE2 code_hint(
      R"((^|\n)\s*(import\s+\w|from\s+[\w.]+\s+import\s|def\s+\w|class\s+\w)|\btorch\.|\w\s*=\s*\S)");
  const std::string& code = block.code;
  if (code.find("Traceback (most recent call last)") != std::string::npos) return false;
  if (code.find("Collecting environment information") != std::string::npos ||
      code.find("PyTorch version:") != std::string::npos ||
      code.find("[pip3] ") != std::string::npos || code.find("[conda] ") != std::string::npos)
    return false;
  static const RE2 error_line(R"(^\s*[A-Z]\w*(Error|Exception|Warning)\b[^=(]*:)");
  bool first = true;
  for (const auto& line : split_lines(code)) {
    if (RE2::PartialMatch(line, traceback_line)) return false;
    if (trim(line).empty()) continue;
    // An error message pasted on its own ("RuntimeError: ... not supported").
    if (first && RE2::PartialMatch(line, error_line)) return false;
    first = false;
  }
  // A block tagged as Python is taken at its word; an untagged one needs a sign of code (output
  // blocks like "tensor([0.])" are often left untagged).
  if (!block.language.empty())
    return python_source(block).find_first_not_of(" \t\n") != std::string::npos;
  return RE2::PartialMatch(python_source(block), code_hint);
}

// Removes the indentation common to all non-blank lines (blocks pasted from inside a function).
std::string dedent(const std::string& code) {
  auto lines = split_lines(code);
  size_t common = std::string::npos;
  for (const auto& l : lines) {
    size_t lead = l.find_first_not_of(" \t");
    if (lead == std::string::npos) continue;
    common = std::min(common, lead);
  }
  if (common == 0 || common == std::string::npos) return code;
  std::string out;
  for (const auto& l : lines) out += (l.size() > common ? l.substr(common) : std::string()) + "\n";
  return out;
}

std::string python_source(const CodeBlock& block) {
  auto lines = split_lines(block.code);
  if (!is_repl(lines)) return dedent(block.code);
  std::string out;
  for (const auto& l : lines) {
    std::string t = l;
    size_t lead = t.find_first_not_of(' ');
    if (lead != std::string::npos) t = t.substr(lead);
    if (starts_with(t, ">>>") || starts_with(t, "...")) {
      std::string rest = t.substr(3);
      if (!rest.empty() && rest[0] == ' ') rest = rest.substr(1);
      out += rest + "\n";
    }
  }
  return out;
}

ExtractedScript extract_script(const IssueText& issue) {
  ExtractedScript result;
  auto take = [&](const std::string& text) {
    for (const auto& block : markdown_code_blocks(text)) {
      if (!looks_like_python(block)) continue;
      std::string src = python_source(block);
      if (!result.code.empty() && result.code.back() != '\n') result.code += '\n';
      result.code += src;
      ++result.blocks;
    }
  };
  take(issue.body);
  if (result.blocks > 0) {
    result.source = "body";
    return result;
  }
  for (const auto& c : issue.comments)
    if (!issue.author.empty() && c.author == issue.author) take(c.body);
  if (result.blocks > 0) result.source = "comments";
  return result;
}

std::vector<std::string> imported_modules(const std::string& code) {
  static const RE2 import_re(R"(^\s*import\s+(.+))");
  static const RE2 from_re(R"(^\s*from\s+([\w.]+)\s+import\b)");
  static const RE2 identifier(R"([A-Za-z_]\w*)");
  std::vector<std::string> names;
  std::set<std::string> seen;
  auto add = [&](std::string dotted) {
    dotted = trim(dotted);
    if (dotted.empty() || dotted[0] == '.') return;
    std::string top = dotted.substr(0, dotted.find('.'));
    if (!RE2::FullMatch(top, identifier)) return;
    if (seen.insert(top).second) names.push_back(top);
  };
  for (const auto& line : split_lines(code)) {
    std::string module, list;
    if (RE2::PartialMatch(line, from_re, &module)) {
      add(module);
    } else if (RE2::PartialMatch(line, import_re, &list)) {
      list = list.substr(0, list.find('#'));
      list = list.substr(0, list.find(';'));
      std::istringstream parts(list);
      std::string part;
      while (std::getline(parts, part, ',')) {
        part = trim(part);
        add(part.substr(0, part.find_first_of(" \t")));  // drop "as alias"
      }
    }
  }
  return names;
}

bool has_export_call(const std::string& code) {
  static const RE2 qualified(R"(\bonnx\s*\.\s*(utils\s*\.\s*)?_?export\s*\()");
  static const RE2 imported(R"(from\s+torch\.onnx(\.utils)?\s+import\s+[^\n]*\b_?export\b)");
  static const RE2 bare(R"((^|[^\w.])_?export\s*\()");
  if (RE2::PartialMatch(code, qualified)) return true;
  return RE2::PartialMatch(code, imported) && RE2::PartialMatch(code, bare);
}

}  // namespace convfail::repro
