// The GraphQL documents convfail sends to GitHub (one constant each, the single source: the
// crawl sends them and `convfail __graphql-queries` prints them for the schema validation test),
// and the GraphQL endpoint of an API root.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace convfail::crawler {

// Database ids are asked as fullDatabaseId (a BigInt sent as a string): databaseId is a 32-bit
// Int, which ids outgrew in 2024.
// A page of a repository's issues (orderBy UPDATED_AT ASC, filterBy since/labels/states; with
// the connection's totalCount) with
// each issue's labels, first 100 comments and first 100 timeline items of the types the store
// keeps, and rateLimit{cost remaining resetAt limit}. Variables: owner, name, first, after,
// since, labels, states, comments (100, or 1 with --no-comments: the count is still read),
// withTimeline.
extern const char* const kIssuesQuery;
// The follow-up pages of one issue's comments, timeline items or labels (owner, name, number,
// after; withTimeline for the shared fragment).
extern const char* const kIssueCommentsQuery;
extern const char* const kIssueTimelineQuery;
extern const char* const kIssueLabelsQuery;

// Every document with its name, for `convfail __graphql-queries`.
std::vector<std::pair<std::string, std::string>> graphql_documents();

// The GraphQL endpoint of an API root: https://api.github.com -> https://api.github.com/graphql;
// a GitHub Enterprise Server root https://HOST/api/v3 -> https://HOST/api/graphql.
std::string graphql_endpoint(const std::string& api_root);

}  // namespace convfail::crawler
