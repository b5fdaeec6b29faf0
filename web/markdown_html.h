// The one Markdown renderer: GitHub-flavoured Markdown to HTML that a page may insert as it is.
// Debian's libcmark-gfm with the table, strikethrough, autolink, tagfilter and tasklist
// extensions, in cmark's safe mode (CMARK_OPT_UNSAFE is never set): raw HTML, block or inline,
// becomes "<!-- raw HTML omitted -->", and link and image URLs with a javascript:, vbscript:,
// file: or data: scheme (images only: png, gif, jpeg and webp data; links never) are dropped
// (href=""); invalid
// UTF-8 is replaced. Tables are rendered with align attributes, never style attributes (the page's
// CSP allows no inline style).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace convfail::web {

// The parser's worst cases are superlinear (runs of "![[]()" grow with the square of the text):
// longer texts are not rendered. GitHub caps an issue or comment body at 65,536 characters.
inline constexpr std::size_t kMaxMarkdownHtmlBytes = 65536;
// A table costs a node per cell, and short rows are padded to the header's width: when the text's
// lines times its widest row's cells exceed this, tables stay text (the rest is rendered).
inline constexpr std::size_t kMaxMarkdownTableCells = 50000;

// The HTML of `markdown` (a fragment: no <html> or <body>); nullopt when it is longer than
// kMaxMarkdownHtmlBytes. Thread-safe.
std::optional<std::string> markdown_to_safe_html(std::string_view markdown);

}  // namespace convfail::web
