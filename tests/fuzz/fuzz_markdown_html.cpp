// Markdown to safe HTML (web/markdown_html) on any text, with the page's invariants: no <script
// (or any raw tag cmark's safe mode omits) and no javascript:, vbscript:, file: or data: URL in a
// link's href; output bounded by the input's size; nothing over kMaxMarkdownHtmlBytes rendered.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "web/markdown_html.h"

using namespace convfail;
using namespace convfail::web;

namespace {

std::string lower_ascii(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

struct Attribute {
  std::string tag, name, value;
};

// Every attribute of every tag, read as a browser reads the tags: cmark escapes '<' and '"' in
// text and in attribute values, so a tag starts at '<' and a quoted value ends at '"'.
std::vector<Attribute> attributes(const std::string& html) {
  std::vector<Attribute> out;
  auto word = [&](std::size_t& i) {
    std::size_t begin = i;
    while (i < html.size() && (std::isalnum(static_cast<unsigned char>(html[i])) ||
                               html[i] == '-' || html[i] == '_' || html[i] == ':'))
      ++i;
    return html.substr(begin, i - begin);
  };
  for (std::size_t i = html.find('<'); i != std::string::npos; i = html.find('<', i)) {
    if (html.compare(i, 4, "<!--") == 0) {
      std::size_t end = html.find("-->", i + 4);
      FUZZ_CHECK(end != std::string::npos);
      i = end + 3;
      continue;
    }
    ++i;
    if (i < html.size() && html[i] == '/') ++i;
    std::string tag = word(i);
    while (i < html.size() && html[i] != '>') {
      if (html[i] == ' ' || html[i] == '/' || html[i] == '\n') {
        ++i;
        continue;
      }
      Attribute a{tag, word(i), ""};
      FUZZ_CHECK(!a.name.empty());  // anything else in a tag is not what cmark writes
      if (i < html.size() && html[i] == '=') {
        FUZZ_CHECK(i + 1 < html.size() && html[i + 1] == '"');
        std::size_t end = html.find('"', i + 2);
        FUZZ_CHECK(end != std::string::npos);
        a.value = html.substr(i + 2, end - i - 2);
        i = end + 1;
      }
      out.push_back(a);
    }
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
  for (const Attribute& a : attributes(low)) {
    FUZZ_CHECK(a.name != "style" && a.name.rfind("on", 0) != 0);  // no inline style, no handler
    if (a.name == "href") FUZZ_CHECK(!dangerous_scheme(a.value));
    // Images may carry data: only for png, gif, jpeg and webp.
    if (a.name == "src" && dangerous_scheme(a.value))
      FUZZ_CHECK(
          a.value.rfind("data:image/png", 0) == 0 || a.value.rfind("data:image/gif", 0) == 0 ||
          a.value.rfind("data:image/jpeg", 0) == 0 || a.value.rfind("data:image/webp", 0) == 0);
  }
  // Bounded: every input byte becomes at most a few dozen output bytes (a '>' opens a
  // blockquote, "- " a list item, '&' an entity), plus the padding of short table rows.
  FUZZ_CHECK(html->size() <= 64 * size + 1024);
  return 0;
}
