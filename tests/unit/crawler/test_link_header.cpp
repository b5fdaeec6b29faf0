#include <doctest/doctest.h>

#include "crawler/link_header.h"

using namespace convfail;

TEST_CASE("crawler: Link header relations are parsed, not guessed") {
  std::string h =
      "<https://api.github.com/repositories/1/issues?page=2&per_page=100>; rel=\"next\", "
      "<https://api.github.com/repositories/1/issues?page=7&per_page=100>; rel=\"last\"";
  CHECK(crawler::link_with_rel(h, "next") ==
        "https://api.github.com/repositories/1/issues?page=2&per_page=100");
  CHECK(crawler::link_with_rel(h, "last") ==
        "https://api.github.com/repositories/1/issues?page=7&per_page=100");
  CHECK_FALSE(crawler::link_with_rel(h, "prev"));
  // Last page: only prev/first.
  CHECK_FALSE(crawler::link_with_rel(
      "<https://x/a?page=1>; rel=\"first\", <https://x/a?page=6>; rel=\"prev\"", "next"));
  // Unquoted rel, several relations in one, commas inside the URL.
  CHECK(crawler::link_with_rel("<https://x/a?labels=a,b&page=3>; rel=next", "next") ==
        "https://x/a?labels=a,b&page=3");
  CHECK(crawler::link_with_rel("<https://x/a?page=3>; rel=\"next last\"", "last") ==
        "https://x/a?page=3");
  CHECK_FALSE(crawler::link_with_rel("", "next"));
  CHECK_FALSE(crawler::link_with_rel("garbage; rel=\"next\"", "next"));
}
