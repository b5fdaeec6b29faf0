// The crawl through GitHub's GraphQL API (`crawl --api graphql`): pages of a repository's issues
// with their labels, comments and timeline items in one request each, stored as the REST crawl
// stores them (same rows, same has_fix_link), incremental and resumable in the same crawl_state.
//
// Raw JSON shape: each GraphQL node is mapped to the REST object's field names before it is
// stored, and that mapped object is what raw_json holds, with "node_id" (the GraphQL id) and
// "via": "graphql" added:
//   issue    {number, id (fullDatabaseId), node_id, title, body, state (lower case), user{login},
//             author_association, created_at, updated_at, closed_at, html_url, labels[{name}],
//             comments (totalCount), via}
//   comment  {id (fullDatabaseId), user{login}, author_association, created_at, updated_at, body,
//             via}
// A null author or actor (a deleted account) is stored as REST's {"login": "ghost"}.
//   event    {event (REST name: labeled, closed, cross-referenced, commented, ...), actor{login},
//             created_at, and per type commit_id (closed: closer's oid or merge commit;
//             referenced: commit.oid), source{type:"issue", issue{number, state, html_url,
//             repository{full_name}, pull_request{html_url} when a pull request}}, label{name},
//             assignee{login}, rename{from,to}, id (commented), via}
#pragma once

#include <functional>
#include <string>

#include "core/db.h"
#include "core/json_util.h"
#include "crawler/crawler.h"

namespace convfail::crawler {

// Runs one GraphQL crawl (options validated by crawl(), which calls this for --api graphql).
CrawlSummary crawl_graphql(Db& db, const CrawlOptions& options,
                           const std::function<void(const std::string&)>& notice,
                           const CrawlProgress& progress);

// The REST-shaped objects of GraphQL nodes (the shapes above); exposed for unit tests.
Json issue_from_graphql(const Json& node);
Json comment_from_graphql(const Json& node);
// nullopt for an item type the store does not keep.
std::optional<Json> event_from_graphql(const Json& node);

}  // namespace convfail::crawler
