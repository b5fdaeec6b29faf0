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
