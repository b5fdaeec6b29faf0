#include <doctest/doctest.h>

#include "cli/issue_stats.h"
#include "issue_fixture.h"

using namespace convfail;
using namespace convfail::cli;
using test::fixture_db;

TEST_CASE("issue stats: per repository, state and label") {
  test::TempDir dir;
  auto db = fixture_db(dir);
  IssueStats s = compute_stats(*db, 2, [](const std::string& r) { return "conv:" + r; });
  CHECK(s.repositories == 2);
  CHECK(s.issues == 5);
  CHECK(s.pull_requests == 1);
  CHECK(s.comments == 4);
  CHECK(s.with_fix_link == 1);
  REQUIRE(s.per_repo.size() == 2);
  CHECK(s.per_repo[0].repo == "pytorch/pytorch");
  CHECK(s.per_repo[0].converter == "conv:pytorch/pytorch");
  CHECK(s.per_repo[0].issues == 3);
  CHECK(s.per_repo[0].open == 1);
  CHECK(s.per_repo[1].issues == 2);
  CHECK(s.per_repo[1].pull_requests == 1);
  REQUIRE(s.labels.size() == 2);
  CHECK(s.labels[0].first == "bug");  // 2 issues (the PR's label is not counted), then ties by name
  CHECK(s.labels[0].second == 2);
  Json j = to_json(s);
  CHECK(j["issues"] == 5);
  CHECK(j["per_repository"].size() == 2);
  CHECK(format_stats(s).find("conv:pytorch/pytorch") != std::string::npos);
}
