#include "web/markdown_html.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "core/markdown.h"

namespace convfail::web {
namespace {

// An upper bound of the cells tables could hold: lines times the most '|' on one line plus one.
std::size_t table_cells_bound(std::string_view text) {
  std::size_t most = 0;
  std::vector<std::string_view> lines = markdown_lines(text);
  for (std::string_view line : lines)
    most = std::max<std::size_t>(most, std::count(line.begin(), line.end(), '|'));
  return most == 0 ? 0 : lines.size() * (most + 1);
}

// Whether a link URL is a data: URL as a browser reads it: leading spaces and control
// characters skipped, tabs and line breaks ignored, the scheme in any case.
bool is_data_url(const char* url) {
  if (!url) return false;
  std::string scheme;
  for (const char* p = url; *p && scheme.size() < 5; ++p) {
    auto c = static_cast<unsigned char>(*p);
    if (c == '\t' || c == '\n' || c == '\r' || (scheme.empty() && c <= 0x20)) continue;
    scheme += static_cast<char>(std::tolower(c));
  }
  return scheme == "data:";
}

// cmark's safe mode keeps data:image/png, gif, jpeg and webp URLs on links as on images; a link
// (which a click opens as a page) gets none.
void drop_data_links(cmark_node* doc) {
  cmark_iter* it = cmark_iter_new(doc);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    cmark_node* node = cmark_iter_get_node(it);
    if (ev == CMARK_EVENT_ENTER && cmark_node_get_type(node) == CMARK_NODE_LINK &&
        is_data_url(cmark_node_get_url(node)))
      cmark_node_set_url(node, "");
  }
  cmark_iter_free(it);
}

struct ParserFree {
  void operator()(cmark_parser* p) const { cmark_parser_free(p); }
};
struct NodeFree {
  void operator()(cmark_node* n) const { cmark_node_free(n); }
};

}  // namespace

std::optional<std::string> markdown_to_safe_html(std::string_view markdown) {
  if (markdown.size() > kMaxMarkdownHtmlBytes) return std::nullopt;
  static std::once_flag registered;
  std::call_once(registered, [] { cmark_gfm_core_extensions_ensure_registered(); });

  // Safe mode is cmark's default: no CMARK_OPT_UNSAFE here, ever.
  const int options = CMARK_OPT_VALIDATE_UTF8;
  std::unique_ptr<cmark_parser, ParserFree> parser(cmark_parser_new(options));
  bool tables = table_cells_bound(markdown) <= kMaxMarkdownTableCells;
  for (const char* name : {"table", "strikethrough", "autolink", "tagfilter", "tasklist"}) {
    if (!tables && std::string_view(name) == "table") continue;
    if (cmark_syntax_extension* e = cmark_find_syntax_extension(name))
      cmark_parser_attach_syntax_extension(parser.get(), e);
  }
  cmark_parser_feed(parser.get(), markdown.data(), markdown.size());
  std::unique_ptr<cmark_node, NodeFree> doc(cmark_parser_finish(parser.get()));
  drop_data_links(doc.get());
  char* html =
      cmark_render_html(doc.get(), options, cmark_parser_get_syntax_extensions(parser.get()));
  std::string out = html ? html : "";
  std::free(html);
  return out;
}

}  // namespace convfail::web
