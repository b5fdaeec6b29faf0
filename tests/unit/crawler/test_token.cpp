// The token's checks: nothing that could inject a header, from the environment or a file.
#include <doctest/doctest.h>

#include "core/error.h"
#include "crawler/token.h"
#include "test_helpers.h"

using namespace convfail;

TEST_CASE("token: values that would inject headers are refused") {
  CHECK(crawler::token_problem("ghp_abcDEF123").empty());
  CHECK_FALSE(crawler::token_problem("abc\r\nX-Injected: yes").empty());
  CHECK_FALSE(crawler::token_problem(std::string("abc\x7f", 4)).empty());
  CHECK_FALSE(crawler::token_problem("abc\tdef").empty());
  CHECK_FALSE(crawler::token_problem("abc def").empty());
}

TEST_CASE("token: a token file with a control character or two lines is refused, unprinted") {
  test::TempDir dir;
  std::string ok = dir.write("ok", "ghp_fileToken1\n");
  CHECK(crawler::load_github_token(ok) == "ghp_fileToken1");
  std::string bad = dir.write("bad",
                              "ghp_se\x1b"
                              "cret\n");
  CHECK_THROWS_WITH_AS(crawler::load_github_token(bad), doctest::Contains("control character"),
                       UserError);
  try {
    crawler::load_github_token(bad);
  } catch (const UserError& e) {
    CHECK(std::string(e.what()).find("cret") == std::string::npos);
  }
  std::string two = dir.write("two", "ghp_one\nX-Injected: yes\n");
  CHECK_THROWS_WITH_AS(crawler::load_github_token(two), doctest::Contains("more than one line"),
                       UserError);
}
