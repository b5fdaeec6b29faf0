// GitHubApi on its own: headers sent, conditional requests, a 304 reusing the cached page.
#include <doctest/doctest.h>

#include "core/error.h"
#include "core/migrations.h"
#include "crawler/github_api.h"
#include "test_helpers.h"
#include "tests/fake_github/fake_github.h"

using namespace convfail;
using namespace convfail::crawler;

TEST_CASE("github api: a 304 without a Link header still knows the next page") {
  test::TempDir dir;
  fake::FakeGitHubOptions so;
  so.issues = 30;
  so.link_on_304 = false;
  fake::FakeGitHub server(so);
  auto db = open_database(dir.file("c.db"));
  crawler::HttpCache cache(*db);
  crawler::GitHubApi api(crawler::ApiOptions{}, &cache, {});
  std::string url = server.url() + "/repos/o/r/issues?state=all&per_page=10";
  crawler::Fetched first = api.get(url);
  REQUIRE(first.cache_update);
  REQUIRE(first.next_url);
  CHECK_FALSE(first.not_modified);
  CHECK(first.data.size() == 10);
  cache.put(*first.cache_update);
  crawler::Fetched second = api.get(url);
  CHECK(second.not_modified);
  CHECK(second.next_url == first.next_url);
  CHECK(second.data == first.data);
  CHECK(api.stats().requests == 2);
  CHECK(api.stats().not_modified == 1);
  CHECK(api.stats().rate_remaining == 5000);
  auto log = server.log();
  REQUIRE(log.size() == 2);
  CHECK_FALSE(log[0].conditional);
  CHECK(log[1].conditional);
  CHECK(log[1].authorization.empty());  // anonymous without a token
}

TEST_CASE("github api: HTTP errors that retrying cannot fix stop with a clear message") {
  fake::FakeGitHub server({});
  crawler::GitHubApi api(crawler::ApiOptions{}, nullptr, {});
  CHECK_THROWS_WITH_AS(api.get(server.url() + "/repos/o/r/issues/99999/comments"),
                       doctest::Contains("HTTP 404"), UserError);
  CHECK_THROWS_WITH_AS(api.get(server.url() + "/repos/o/r/issues?state=nope"),
                       doctest::Contains("HTTP 422"), UserError);
}

TEST_CASE("github api: origins, automatic concurrency, the response cap") {
  CHECK(http::origin_of("https://API.github.com/repos/a/b?x=1") == "https://api.github.com:443");
  CHECK(http::origin_of("http://127.0.0.1:8080/x") == "http://127.0.0.1:8080");
  CHECK_FALSE(http::origin_of("ftp://example.org/x"));
  CHECK_FALSE(http::origin_of("not a url"));
  crawler::ApiOptions o;
  o.api_root = "https://api.github.com";
  CHECK(crawler::effective_concurrency(o) == 1);  // GitHub asks for serial requests
  o.api_root = "http://127.0.0.1:9";
  CHECK(crawler::effective_concurrency(o) == 4);
  o.concurrency = 2;
  CHECK(crawler::effective_concurrency(o) == 2);

  fake::FakeGitHubOptions so;
  so.issues = 300;
  fake::FakeGitHub server(so);
  crawler::ApiOptions small;
  small.api_root = server.url();
  small.max_response_bytes = 4096;  // one listing page of 100 issues is far larger
  crawler::GitHubApi api(small, nullptr, {});
  CHECK_THROWS_WITH_AS(api.get(server.url() + "/repos/o/r/issues?state=all&per_page=100"),
                       doctest::Contains("larger than the cap"), UserError);
  // A URL on another origin is refused before any request, with or without a token.
  CHECK_THROWS_WITH_AS(api.get("http://127.0.0.1:1/repos/o/r/issues"),
                       doctest::Contains("not on the API origin"), UserError);
  CHECK(api.stats().requests == 1);
}

TEST_CASE("github api: the token goes to the API origin only") {
  fake::FakeGitHubOptions so;
  so.issues = 30;
  fake::FakeGitHub other(so);
  so.redirect_to = other.url();
  fake::FakeGitHub api_server(so);
  crawler::ApiOptions o;
  o.api_root = api_server.url();
  o.token = "tok_secret";
  crawler::GitHubApi api(o, nullptr, {});
  CHECK_THROWS_WITH_AS(api.get(api_server.url() + "/repos/o/r/issues"),
                       doctest::Contains("not on the API origin"), UserError);
  REQUIRE(api_server.log().size() == 1);
  CHECK(api_server.log()[0].authorization == "Bearer tok_secret");
  REQUIRE(other.log().size() == 1);  // libcurl followed the redirect, without the token
  CHECK(other.log()[0].authorization.empty());
}

TEST_CASE("github api: answers over the item bounds are refused while they are parsed") {
  ApiOptions o;
  o.max_page_items = 3;
  o.max_array_items = 5;
  o.max_json_values = 20;
  CHECK(parse_bounded_json("[{},{},{}]", o, true, "GET x").size() == 3);
  CHECK_THROWS_WITH_AS(parse_bounded_json("[{},{},{},{}]", o, true, "GET x"),
                       doctest::Contains("GET x: the answer holds more than 3 items in one page"),
                       UserError);
  // Nested arrays have their own bound; a GraphQL answer is not a page.
  CHECK(parse_bounded_json(R"({"a":[1,2,3,4,5]})", o, false, "POST y").is_object());
  CHECK_THROWS_WITH_AS(parse_bounded_json(R"({"a":[1,2,3,4,5,6]})", o, false, "POST y"),
                       doctest::Contains("an array of more than 5 items"), UserError);
  // 1 + 3 arrays + 15 numbers = 19 values: within 20, over 18.
  CHECK(parse_bounded_json("[[1,2,3,4,5],[1,2,3,4,5],[1,2,3,4,5]]", o, true, "GET x").size() == 3);
  o.max_json_values = 18;
  CHECK_THROWS_WITH_AS(
      parse_bounded_json("[[1,2,3,4,5],[1,2,3,4,5],[1,2,3,4,5]]", o, true, "GET x"),
      doctest::Contains("more than 18 JSON values"), UserError);
  CHECK(parse_bounded_json("[1,", o, true, "GET x").is_discarded());
}

TEST_CASE("github api: a host that never answered fails at once, one that answered is retried") {
  crawler::ApiOptions o;
  o.backoff_base_s = 0.01;
  o.max_retries = 2;
  {  // A refused port before any answer: no retry.
    fake::FakeGitHub gone({});
    std::string url = gone.url() + "/repos/o/r/issues";
    gone.stop();
    crawler::GitHubApi api(o, nullptr, {});
    CHECK_THROWS_WITH_AS(api.get(url), doctest::Contains("not retried"), UserError);
    CHECK(api.stats().retries == 0);
    CHECK(api.stats().requests == 1);
  }
  {  // A name that does not resolve (.invalid never does): no retry.
    crawler::GitHubApi api(o, nullptr, {});
    CHECK_THROWS_WITH_AS(api.get("http://nonexistent.invalid/repos/o/r/issues"),
                         doctest::Contains("not retried"), UserError);
    CHECK(api.stats().retries == 0);
  }
  // The same refusal after the server answered once: retried with back-off, then the error.
  fake::FakeGitHub server({});
  std::string url = server.url() + "/repos/o/r/issues?state=all&per_page=10";
  crawler::GitHubApi api(o, nullptr, {});
  CHECK(api.get(url).data.is_array());
  server.stop();
  CHECK_THROWS_WITH_AS(api.get(url), doctest::Contains("failed 3 times"), UserError);
  CHECK(api.stats().retries == 2);
}
