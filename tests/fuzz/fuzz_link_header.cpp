// The crawler's Link header parser (RFC 8288 as GitHub sends it) on any header value, for the
// relations the crawl asks for. Invariant: a URL found is text between '<' and '>' of the header.
#include "crawler/link_header.h"
#include "fuzz_check.h"

using namespace convfail;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string header(fuzz::as_text(data, size));
  for (const char* rel : {"next", "last", "prev", "first", ""}) {
    std::optional<std::string> url = crawler::link_with_rel(header, rel);
    if (!url) continue;
    FUZZ_CHECK(url->find('>') == std::string::npos);
    FUZZ_CHECK(header.find("<" + *url + ">") != std::string::npos);
  }
  return 0;
}
