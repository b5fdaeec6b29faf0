#include <doctest/doctest.h>

#include "classifier/segment.h"

using namespace convfail;
using namespace convfail::classifier;

TEST_CASE("segment: fenced code blocks leave the prose and keep their text") {
  classifier::MarkdownParts p =
      classifier::split_markdown("before\n```python\nx = f(1)\ny = 2\n```\nafter\n~~~\nz\n~~~");
  REQUIRE(p.code.size() == 2);
  CHECK(p.code[0] == "x = f(1)\ny = 2");
  CHECK(p.code[1] == "z");
  CHECK(p.prose == "before\nafter");
  CHECK(p.tracebacks.empty());
}

TEST_CASE("segment: indented code needs a blank line before it") {
  classifier::MarkdownParts p =
      classifier::split_markdown("intro\n\n    a = 1\n\tb = 2\n\nback to text\n    not code");
  REQUIRE(p.code.size() == 1);
  CHECK(p.code[0] == "a = 1\nb = 2");
  CHECK(p.prose == "intro\n\n\nback to text\n    not code");
}

TEST_CASE("segment: a Python traceback in prose, with its last error line") {
  std::string text =
      "It fails:\n"
      "Traceback (most recent call last):\n"
      "  File \"/x/site-packages/pkg/a.py\", line 3, in <module>\n"
      "    main()\n"
      "  File \"/x/site-packages/pkg/b.py\", line 9, in main\n"
      "    raise KeyError(k)\n"
      "KeyError: 'missing'\n"
      "Any idea?";
  classifier::MarkdownParts p = classifier::split_markdown(text);
  REQUIRE(p.tracebacks.size() == 1);
  CHECK(p.tracebacks[0].rfind("Traceback (most recent call last):", 0) == 0);
  CHECK(p.tracebacks[0].find("KeyError: 'missing'") != std::string::npos);
  REQUIRE(p.error_lines.size() == 1);
  CHECK(p.error_lines[0] == "KeyError: 'missing'");
  CHECK(p.prose == "It fails:\nAny idea?");
}

TEST_CASE("segment: chained tracebacks and a headerless one inside a fence") {
  std::string text =
      "```\n"
      "Traceback (most recent call last):\n"
      "  File \"a.py\", line 1, in f\n"
      "ValueError: first\n"
      "\n"
      "During handling of the above exception, another exception occurred:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"a.py\", line 2, in g\n"
      "RuntimeError: second\n"
      "```\n"
      "  File \"b.py\", line 5, in h\n"
      "TypeError: third";
  classifier::MarkdownParts p = classifier::split_markdown(text);
  CHECK(p.code.size() == 1);
  REQUIRE(p.error_lines.size() == 3);
  CHECK(p.error_lines[0] == "ValueError: first");
  CHECK(p.error_lines[1] == "RuntimeError: second");
  CHECK(p.error_lines[2] == "TypeError: third");
}

TEST_CASE("segment: issue fields, reporter and maintainer comments, labels") {
  classifier::IssueText issue;
  issue.title = "Export fails";
  issue.author = "alice";
  issue.body = "prose\n```\ncode here\n```";
  issue.labels = {"bug", "module: onnx"};
  issue.comments = {{"bob", "MEMBER", "maintainer says"},
                    {"alice", "", "reporter adds\n\n    more code"},
                    {"carol", "NONE", "me too"},
                    {"dave", "", ""}};
  classifier::Segments s = classifier::segment_issue(issue);
  auto text_of = [&](classifier::FieldKind k) {
    std::vector<std::string> out;
    for (const classifier::Field* f : s.of(k)) out.push_back(f->text);
    return out;
  };
  CHECK(text_of(classifier::FieldKind::kTitle) == std::vector<std::string>{"Export fails"});
  CHECK(text_of(classifier::FieldKind::kBody) == std::vector<std::string>{"prose"});
  CHECK(text_of(classifier::FieldKind::kCode) ==
        std::vector<std::string>{"code here", "more code"});
  CHECK(text_of(classifier::FieldKind::kMaintainerComment) ==
        std::vector<std::string>{"maintainer says"});
  CHECK(text_of(classifier::FieldKind::kReporterComment) ==
        std::vector<std::string>{"reporter adds\n"});
  CHECK(text_of(classifier::FieldKind::kComment) == std::vector<std::string>{"me too"});
  CHECK(text_of(classifier::FieldKind::kLabel) == std::vector<std::string>{"bug", "module: onnx"});
  // Indices count per kind.
  CHECK(s.of(classifier::FieldKind::kCode)[1]->index == 1);
}

TEST_CASE("segment: empty and null-like issues give only what exists") {
  classifier::IssueText issue;
  issue.title = "Only a title";
  classifier::Segments s = classifier::segment_issue(issue);
  REQUIRE(s.fields.size() == 1);
  CHECK(s.fields[0].kind == classifier::FieldKind::kTitle);
  CHECK(s.bytes() == 12);
}
