// The GraphQL crawl's pieces: the endpoint of an API root, the mapping of GraphQL nodes to the
// store's REST shapes (fix-link events), and the fake server's GitHub cost formula and limits.
#include <doctest/doctest.h>

#include "core/issue_store.h"
#include "crawler/graphql_crawl.h"
#include "crawler/graphql_query.h"
#include "tests/fake_github/fake_graphql.h"

using namespace convfail;
using namespace convfail::crawler;

TEST_CASE("graphql: endpoint of an API root, GitHub Enterprise Server included") {
  CHECK(graphql_endpoint("https://api.github.com") == "https://api.github.com/graphql");
  CHECK(graphql_endpoint("https://api.github.com/") == "https://api.github.com/graphql");
  CHECK(graphql_endpoint("https://ghe.example.org/api/v3") ==
        "https://ghe.example.org/api/graphql");
  CHECK(graphql_endpoint("https://ghe.example.org/api/v3/") ==
        "https://ghe.example.org/api/graphql");
  CHECK(graphql_endpoint("http://127.0.0.1:8080") == "http://127.0.0.1:8080/graphql");
}

TEST_CASE("graphql: issue and comment nodes map to the REST field names") {
  Json node = Json::parse(R"({"id":"I_kw1","databaseId":42,"number":7,"title":"t","body":"b",
    "state":"CLOSED","createdAt":"2021-01-01T00:00:00Z","updatedAt":"2021-01-02T00:00:00Z",
    "closedAt":"2021-01-02T00:00:00Z","url":"https://github.com/o/r/issues/7",
    "authorAssociation":"MEMBER","author":null,
    "labels":{"pageInfo":{"hasNextPage":false,"endCursor":null},"nodes":[{"name":"bug"}]},
    "comments":{"totalCount":3,"pageInfo":{"hasNextPage":false},"nodes":[]}})");
  Json i = issue_from_graphql(node);
  CHECK(i["number"] == 7);
  CHECK(i["id"] == 42);
  CHECK(i["state"] == "closed");
  CHECK(i["user"]["login"] == "ghost");  // a deleted account: REST's login for it
  CHECK(i["comments"] == 3);
  CHECK(issue_label_names(i) == std::vector<std::string>{"bug"});
  CHECK_FALSE(is_pull_request(i));
  Json c = comment_from_graphql(Json::parse(
      R"({"databaseId":9,"author":{"login":"u"},"authorAssociation":"NONE",
          "createdAt":"2021-01-01T00:00:00Z","updatedAt":"2021-01-01T00:00:00Z","body":"x"})"));
  CHECK(c["user"]["login"] == "u");
  CHECK(c["id"] == 9);
  // fullDatabaseId (a BigInt, sent as a string) wins over databaseId, above 2^31 and 2^53.
  Json big = comment_from_graphql(
      Json::parse(R"({"fullDatabaseId":"9007199254740993","databaseId":null,"author":null})"));
  CHECK(big["id"].get<std::int64_t>() == 9007199254740993LL);
  CHECK(big["user"]["login"] == "ghost");
  CHECK(comment_from_graphql(Json::parse(R"({"fullDatabaseId":"2147483648"})"))["id"] ==
        2147483648LL);
  CHECK(comment_from_graphql(Json::parse(R"({"fullDatabaseId":"12x"})"))["id"].is_null());
}

TEST_CASE("graphql: timeline items map to REST events that the fix-link rule reads alike") {
  auto ev = [](const char* text) { return *event_from_graphql(Json::parse(text)); };
  Json merged_pr = ev(R"({"__typename":"CrossReferencedEvent","actor":{"login":"a"},
      "createdAt":"2021-01-01T00:00:00Z","source":{"__typename":"PullRequest","number":5,
      "pullState":"MERGED","url":"https://github.com/o/r/pull/5",
      "repository":{"nameWithOwner":"o/r"}}})");
  CHECK(merged_pr["event"] == "cross-referenced");
  CHECK(merged_pr["source"]["issue"]["state"] == "closed");
  CHECK(is_pull_request(merged_pr["source"]["issue"]));
  CHECK(timeline_has_fix_link("o/r", Json::array({merged_pr})));
  CHECK_FALSE(timeline_has_fix_link("x/y", Json::array({merged_pr})));

  Json open_issue = ev(R"({"__typename":"CrossReferencedEvent","source":{"__typename":"Issue",
      "number":6,"state":"OPEN","repository":{"nameWithOwner":"o/r"}}})");
  CHECK_FALSE(timeline_has_fix_link("o/r", Json::array({open_issue})));

  Json by_pr = ev(R"({"__typename":"ClosedEvent","closer":{"__typename":"PullRequest",
      "mergeCommit":{"oid":"abc"}}})");
  CHECK(by_pr["commit_id"] == "abc");
  Json by_hand = ev(R"({"__typename":"ClosedEvent","closer":null})");
  CHECK(by_hand["commit_id"].is_null());
  CHECK_FALSE(timeline_has_fix_link("o/r", Json::array({by_hand})));
  CHECK(timeline_has_fix_link("o/r", Json::array({ev(R"({"__typename":"ConnectedEvent"})")})));
  Json ref = ev(R"({"__typename":"ReferencedEvent","commit":{"oid":"def"}})");
  CHECK(ref["commit_id"] == "def");
  CHECK(ev(R"({"__typename":"IssueComment","databaseId":1,"author":{"login":"c"}})")["event"] ==
        "commented");
  CHECK_FALSE(event_from_graphql(Json::parse(R"({"__typename":"PinnedEvent"})")));
  CHECK_FALSE(event_from_graphql(Json::parse(R"({"no":"type"})")));
}

TEST_CASE("fake graphql: GitHub's cost formula on the documents convfail sends") {
  Json vars = {{"owner", "o"},      {"name", "r"},      {"first", 100},
               {"after", nullptr},  {"since", nullptr}, {"labels", nullptr},
               {"states", nullptr}, {"comments", 100},  {"withTimeline", true}};
  fake::GqlCost c = fake::graphql_cost(fake::parse_graphql(kIssuesQuery, vars));
  // issues: 1 request; labels, comments, timelineItems: one per issue (100 each).
  CHECK(c.requests == 301);
  CHECK(c.cost() == 3);
  CHECK(c.nodes == 100 + 3 * 100 * 100);
  vars["withTimeline"] = false;  // @include(if: false) drops the timeline connection
  c = fake::graphql_cost(fake::parse_graphql(kIssuesQuery, vars));
  CHECK(c.requests == 201);
  CHECK(c.cost() == 2);
  vars["first"] = 50;
  CHECK(fake::graphql_cost(fake::parse_graphql(kIssuesQuery, vars)).cost() == 1);
  vars["first"] = 101;
  CHECK_THROWS_WITH_AS(fake::graphql_cost(fake::parse_graphql(kIssuesQuery, vars)),
                       doctest::Contains("exceeds the `first` limit of 100"), fake::GqlError);
  Json follow = {{"owner", "o"}, {"name", "r"}, {"number", 1}, {"after", "x"}};
  CHECK(fake::graphql_cost(fake::parse_graphql(kIssueCommentsQuery, follow)).cost() == 1);
}

TEST_CASE("fake graphql: the 500,000-node limit and malformed documents") {
  const char* deep =
      "query { repository(owner: \"o\", name: \"r\") { issues(first: 100) { nodes {"
      " comments(first: 100) { nodes { reactions(first: 100) { nodes { content } } } } } } } }";
  CHECK_THROWS_WITH_AS(fake::graphql_cost(fake::parse_graphql(deep, Json::object())),
                       doctest::Contains("exceeds the maximum limit of 500,000"), fake::GqlError);
  CHECK_THROWS_AS(fake::parse_graphql("query { repository(owner: $o) { id } }", Json::object()),
                  fake::GqlError);
  CHECK_THROWS_AS(fake::parse_graphql("query { repository {", Json::object()), fake::GqlError);
  CHECK_THROWS_AS(fake::graphql_cost(fake::parse_graphql(
                      "query { repository(owner: \"o\", name: \"r\") { issues { totalCount } } }",
                      Json::object())),
                  fake::GqlError);
}
