// Turning an issue's text into a runnable Python program: the fenced code blocks of the body
// (else of the reporter's comments) that look like Python, joined in order, plus the static checks
// made before running it (imported modules, presence of an export call).
#pragma once

#include <string>
#include <vector>

namespace convfail::repro {

struct CodeBlock {
  std::string language;  // the fence's info string, lower-cased ("" when none)
  std::string code;
};

// Fenced blocks (``` or ~~~, at least three, closed by the same kind and at least as many) in
// order. An unclosed fence runs to the end of the text (excerpts are often truncated).
std::vector<CodeBlock> markdown_code_blocks(const std::string& markdown);

// Whether a block is Python source rather than a traceback, shell session, log or other
// language. REPL blocks (">>> ") count: see python_source().
bool looks_like_python(const CodeBlock& block);

// The block's source: REPL prompts removed (and their output lines dropped) when it is a REPL
// transcript, otherwise the code unchanged.
std::string python_source(const CodeBlock& block);

struct IssueText {
  std::string author;
  std::string body;  // may be empty
  struct Comment {
    std::string author;
    std::string body;
  };
  std::vector<Comment> comments;  // in thread order
};

struct ExtractedScript {
  std::string code;    // empty when the issue has no Python block
  std::string source;  // "body" | "comments" | ""
  int blocks = 0;      // how many blocks were joined
};

// The body's Python blocks joined in order; when the body has none, those of the comments written
// by the issue's author.
ExtractedScript extract_script(const IssueText& issue);

// Top-level names of the modules a program imports (`import a.b`, `from a import b`), first
// occurrence order, relative imports skipped.
std::vector<std::string> imported_modules(const std::string& code);

// Whether the program calls torch.onnx.export (in any of its usual spellings).
bool has_export_call(const std::string& code);

}  // namespace convfail::repro
