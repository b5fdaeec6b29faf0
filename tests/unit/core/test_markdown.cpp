#include <doctest/doctest.h>

#include <chrono>

#include "core/markdown.h"

using namespace convfail;

namespace {

std::vector<std::string> codes(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& b : split_markdown_code(text).blocks) out.push_back(b.code);
  return out;
}

}  // namespace

TEST_CASE("markdown: backtick and tilde fences, info string kept") {
  auto s =
      split_markdown_code("intro\n```Python title=x\nimport torch\n```\nmid\n~~~\na\n~~~\nend");
  REQUIRE(s.blocks.size() == 2);
  CHECK(s.blocks[0].fenced);
  CHECK(s.blocks[0].info == "Python title=x");
  CHECK(fence_language(s.blocks[0].info) == "python");
  CHECK(s.blocks[0].code == "import torch\n");
  CHECK(s.blocks[0].first_line == 1);
  CHECK(s.blocks[0].end_line == 4);
  CHECK(s.blocks[1].info == "");
  CHECK(s.blocks[1].code == "a\n");
  CHECK(s.in_code == std::vector<bool>{false, true, true, true, false, true, true, true, false});
}

TEST_CASE("markdown: a fence closes only on the same character, at least as long, alone") {
  // ```` is closed by ```` or longer, not by ``` nor ~~~~; "``` x" is not a closer.
  CHECK(codes("````\n```\n~~~~\n``` x\n`````\nafter") ==
        std::vector<std::string>{"```\n~~~~\n``` x\n"});
  CHECK(codes("~~~\n```\n~~~  \n") == std::vector<std::string>{"```\n"});
  // A backtick "fence" with a backtick in its info string is inline code, not a fence.
  CHECK(codes("```a``` b\ntext").empty());
  // Up to three spaces of indent; the opening fence's indent is removed from the content.
  CHECK(codes("  ```\n  x\n    y\n   ```") == std::vector<std::string>{"x\n  y\n"});
  CHECK(codes("    ```\n    x\n").size() == 1);  // 4 spaces: an indented block, not a fence
  CHECK_FALSE(split_markdown_code("    ```\n    x\n").blocks[0].fenced);
}

TEST_CASE("markdown: an unclosed fence runs to the end of the text") {
  auto s = split_markdown_code("text\n```py\nline 1\nline 2\n");
  REQUIRE(s.blocks.size() == 1);
  CHECK_FALSE(s.blocks[0].closed);
  CHECK(s.blocks[0].code == "line 1\nline 2\n");
  CHECK(s.blocks[0].end_line == s.lines.size());
}

TEST_CASE("markdown: indented blocks after a blank line, CRLF lines") {
  auto s = split_markdown_code(
      "para\n    not code: continues the paragraph\n\n    code 1\n\tcode 2\n\n"
      "      code 3\n\nprose\r\n\r\n    x = 1\r\n");
  REQUIRE(s.blocks.size() == 2);
  CHECK_FALSE(s.blocks[0].fenced);
  CHECK(s.blocks[0].code == "code 1\ncode 2\n\n  code 3\n");
  CHECK(s.blocks[1].code == "x = 1\n");
  CHECK_FALSE(s.in_code[1]);
  CHECK_FALSE(s.in_code[7]);  // the blank line after the block
}

TEST_CASE("markdown: linear on a 64 KB block and a 1 MB body") {
  std::string big = "```python\n";
  while (big.size() < 64 * 1024) big += "x = torch.randn(1, 3, 224, 224)  # ``` inside a line\n";
  big += "```\n";
  std::string body;
  std::size_t repeats = 0;
  for (; body.size() < 1024 * 1024; ++repeats)
    body += "prose line\n    indented\n\n" + big + "~~~\n~~\n~~~\n";
  auto t0 = std::chrono::steady_clock::now();
  auto one = split_markdown_code(big);
  auto many = split_markdown_code(body);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(one.blocks.size() == 1);
  CHECK(one.blocks[0].code.size() == big.size() - 14);  // without the two fence lines
  CHECK(many.blocks.size() == 2 * repeats);             // the python block and the ~~~ one
  CHECK(s < 2.0);
}
