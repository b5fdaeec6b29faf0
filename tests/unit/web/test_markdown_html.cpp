#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "web/markdown_html.h"

using namespace convfail;
using namespace convfail::web;

namespace {

std::string html(const std::string& md) {
  auto h = markdown_to_safe_html(md);
  REQUIRE(h);
  return *h;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("markdown_to_safe_html: headings, code fences, lists, tables, strikethrough, autolinks") {
  std::string h = html(
      "# Title\n\nSome *text*.\n\n```python\nimport torch\nx = a < b\n```\n\n- one\n- two\n\n"
      "| op | opset |\n|----|:-----:|\n| Conv | 11 |\n\n~~old~~ see https://example.com/x\n");
  CHECK(has(h, "<h1>Title</h1>"));
  CHECK(has(h, "<em>text</em>"));
  CHECK(has(h, "<code class=\"language-python\">import torch\nx = a &lt; b\n</code>"));
  CHECK(has(h, "<ul>\n<li>one</li>"));
  CHECK(has(h, "<th align=\"center\">opset</th>"));
  CHECK(has(h, "<td>Conv</td>"));
  CHECK(has(h, "<del>old</del>"));
  CHECK(has(h, "<a href=\"https://example.com/x\">"));
  CHECK(!has(h, "style="));
}

TEST_CASE("markdown_to_safe_html: raw HTML omitted, dangerous URLs dropped") {
  std::string h = html(
      "<script>window.pwned=1</script>\n\n<img src=x onerror=window.pwned=2>\n\n"
      "inline <b onclick=\"x()\">bold</b> <iframe src=\"https://e\"></iframe>\n\n"
      "[click](javascript:alert(1)) [v](vbscript:x) [f](file:///etc/passwd) "
      "[d](data:text/html,<script>x</script>) <javascript:alert(2)>\n");
  CHECK(!has(h, "<script"));
  CHECK(!has(h, "<img"));
  CHECK(has(h, "&lt;img src=x onerror"));  // an unclosed tag stays text, escaped
  CHECK(!has(h, "<b"));
  CHECK(!has(h, "onclick"));
  CHECK(!has(h, "<iframe"));
  CHECK(!has(h, "href=\"javascript"));
  CHECK(!has(h, "href=\"vbscript"));
  CHECK(!has(h, "href=\"file"));
  CHECK(!has(h, "href=\"data"));
  CHECK(has(h, "<!-- raw HTML omitted -->"));
  CHECK(has(h, "<a href=\"\">click</a>"));
}

// Issue #41: cmark's safe mode lets data:image/png|gif|jpeg|webp through on links as on images;
// a data: URL is allowed on an image only.
TEST_CASE("markdown_to_safe_html: data: URLs only on images, never on links") {
  std::string h = html(
      "[x](data:image/png;base64,AA==) [y](DATA:image/gif;base64,AA==)\n\n"
      "[z](<\tdata:image/webp;base64,AA==>) ![ok](data:image/png;base64,AA==)\n");
  CHECK(!has(h, "href=\"data"));
  CHECK(!has(h, "href=\"DATA"));
  CHECK(!has(h, "href=\"\tdata"));
  CHECK(has(h, "<a href=\"\">x</a>"));
  CHECK(has(h, "<a href=\"\">y</a>"));
  CHECK(has(h, "<img src=\"data:image/png;base64,AA==\" alt=\"ok\" />"));
  // Other links are kept.
  CHECK(has(html("[a](https://example.com/data:x)"), "href=\"https://example.com/data:x\""));
}

TEST_CASE("markdown_to_safe_html: invalid UTF-8 replaced, too long refused, wide tables as text") {
  CHECK(has(html("a\xff"
                 "b"),
            "a\xEF\xBF\xBD"
            "b"));
  CHECK(!markdown_to_safe_html(std::string(kMaxMarkdownHtmlBytes + 1, 'a')));
  CHECK(markdown_to_safe_html(std::string(kMaxMarkdownHtmlBytes, 'a')));
  // 5000 columns and a few hundred rows: rendered as text, quickly.
  std::string wide = "|";
  for (int i = 0; i < 5000; ++i) wide += "a|";
  wide += "\n|";
  for (int i = 0; i < 5000; ++i) wide += "-|";
  wide += "\n";
  for (int i = 0; i < 300; ++i) wide += "x\n";
  auto t0 = std::chrono::steady_clock::now();
  std::string h = html(wide);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(!has(h, "<table>"));
  CHECK(s < 2.0);
  CHECK(has(html("a|b\n-|-\n1|2\n"), "<table>"));
}
