// Markdown to safe HTML (core/markdown_html) on any text, with the page's invariants: no <script
// (or any raw tag cmark's safe mode omits) and no javascript:, vbscript:, file: or data: URL in a
// link's href; output bounded by the input's size; nothing over kMaxMarkdownHtmlBytes rendered.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "core/markdown_html.h"
#include "fuzz_check.h"

using namespace convfail;

namespace {

std::string lower_ascii(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Every value of `attr="..."` in the HTML.
std::vector<std::string> attribute_values(const std::string& html, const std::string& attr) {
  std::vector<std::string> out;
  std::string key = " " + attr + "=\"";
  for (std::size_t at = html.find(key); at != std::string::npos; at = html.find(key, at + 1)) {
    std::size_t begin = at + key.size(), end = html.find('"', begin);
    FUZZ_CHECK(end != std::string::npos);
    out.push_back(html.substr(begin, end - begin));
  }
  return out;
}

// The names of every attribute: cmark escapes '"' in text as "&quot;", so `="` is in tags only.
std::vector<std::string> attribute_names(const std::string& html) {
  std::vector<std::string> out;
  for (std::size_t at = html.find("=\""); at != std::string::npos; at = html.find("=\"", at + 1)) {
    std::size_t begin = at;
    while (begin > 0 &&
           (std::isalnum(static_cast<unsigned char>(html[begin - 1])) || html[begin - 1] == '-'))
      --begin;
    out.push_back(html.substr(begin, at - begin));
  }
  return out;
}

// A URL's scheme as a browser reads it: entities such as &#58; are decoded by the browser, and
// tabs and newlines inside the scheme are dropped; cmark escapes '&' as "&amp;", so a scheme
// made of entities would show here as "&amp;#...".
bool dangerous_scheme(std::string url) {
  url = lower_ascii(url);
  url.erase(std::remove_if(url.begin(), url.end(),
                           [](char c) { return c == '\t' || c == '\n' || c == '\r' || c == ' '; }),
            url.end());
  for (const char* scheme : {"javascript:", "vbscript:", "file:", "data:"})
    if (url.rfind(scheme, 0) == 0) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  std::optional<std::string> html = markdown_to_safe_html(text);
  if (size > kMaxMarkdownHtmlBytes) {
    FUZZ_CHECK(!html);
    return 0;
  }
  FUZZ_CHECK(html.has_value());
  std::string low = lower_ascii(*html);
  for (const char* tag :
       {"<script", "<iframe", "<object", "<embed", "<style", "<svg", "<form", "<textarea", "<title",
        "<xmp", "<noembed", "<plaintext", "<base", "<meta", "<link "})
    FUZZ_CHECK(low.find(tag) == std::string::npos);
  for (const std::string& name : attribute_names(low))
    FUZZ_CHECK(name != "style" && name.rfind("on", 0) != 0);  // no inline style, no handler
  for (const std::string& href : attribute_values(low, "href")) FUZZ_CHECK(!dangerous_scheme(href));
  // Images may carry data: only for png, gif, jpeg and webp.
  for (const std::string& src : attribute_values(low, "src"))
    if (dangerous_scheme(src))
      FUZZ_CHECK(src.rfind("data:image/png", 0) == 0 || src.rfind("data:image/gif", 0) == 0 ||
                 src.rfind("data:image/jpeg", 0) == 0 || src.rfind("data:image/webp", 0) == 0);
  // Bounded: every input byte becomes at most a few dozen output bytes (a '>' opens a
  // blockquote, "- " a list item, '&' an entity), plus the padding of short table rows.
  FUZZ_CHECK(html->size() <= 64 * size + 1024);
  return 0;
}
