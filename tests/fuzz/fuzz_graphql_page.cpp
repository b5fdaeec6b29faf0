// A GraphQL page of issues, from the body as received to stored issues: parse_bounded_json, the
// answer's data.repository.issues.nodes, each node mapped to the REST shape (issue_from_graphql,
// comment_from_graphql, event_from_graphql: what graphql_crawl.cpp stores), then
// CrawlLedger::store_page with the checkpoint in one transaction. Follow-up pages of long
// connections are not fetched: the first page's nodes are what is stored.
#include "core/error.h"
#include "core/json_util.h"
#include "crawler/github_api.h"
#include "crawler/graphql_crawl.h"
#include "fuzz_check.h"
#include "fuzz_page_store.h"

using namespace convfail;

namespace {

// j[k1][k2]...: null when any step is missing or not an object.
const Json& at(const Json& j, std::initializer_list<const char*> path) {
  static const Json null;
  const Json* cur = &j;
  for (const char* k : path) {
    if (!cur->is_object()) return null;
    auto it = cur->find(k);
    if (it == cur->end()) return null;
    cur = &*it;
  }
  return *cur;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string body(fuzz::as_text(data, size));
  Json answer;
  try {
    answer =
        crawler::parse_bounded_json(body, crawler::ApiOptions{}, /*top_is_page=*/false, "POST");
  } catch (const UserError&) {
    return 0;
  }
  const Json& nodes = at(answer, {"data", "repository", "issues", "nodes"});
  if (!nodes.is_array()) return 0;
  std::vector<crawler::FetchedIssue> items;
  for (const Json& node : nodes) {
    if (!node.is_object() || !opt_int(node, "number")) return 0;  // "an issue without a number"
    Json issue = crawler::issue_from_graphql(node);
    FUZZ_CHECK(issue.is_object());
    if (!fuzz::admit_as_crawl_does(issue)) continue;
    crawler::FetchedIssue it{issue, *opt_int(node, "number"), true};
    it.have_comments = it.have_timeline = true;
    const Json& comments = at(node, {"comments", "nodes"});
    if (comments.is_array())
      for (const Json& c : comments) it.comments.push_back(crawler::comment_from_graphql(c));
    const Json& events = at(node, {"timelineItems", "nodes"});
    if (events.is_array())
      for (const Json& t : events)
        if (auto e = crawler::event_from_graphql(t)) it.timeline.push_back(std::move(*e));
    items.push_back(std::move(it));
  }
  fuzz::store_page_as_crawl_does(items);
  return 0;
}
