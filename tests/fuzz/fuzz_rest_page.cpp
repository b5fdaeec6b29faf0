// A REST listing page, from the body as received to stored issues: parse_bounded_json (the
// bounds the API client checks while parsing), the crawl's checks of a page (an array of
// objects with a number), the choice of its issues, then CrawlLedger::store_page with the
// checkpoint in one transaction. An issue's comments and timeline come from other pages in a real
// crawl; here an issue's "_comments" and "_timeline" arrays stand for them, so the input reaches
// the comment and timeline store too.
#include "core/error.h"
#include "core/json_util.h"
#include "crawler/github_api.h"
#include "fuzz_check.h"
#include "fuzz_page_store.h"

using namespace convfail;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string body(fuzz::as_text(data, size));
  crawler::ApiOptions options;
  Json page;
  try {
    page = crawler::parse_bounded_json(body, options, /*top_is_page=*/true, "GET page");
  } catch (const UserError&) {
    return 0;  // over the bounds: refused, as the crawl refuses it
  }
  if (!page.is_array()) return 0;  // the crawl stops: "expected a JSON array of issues"
  FUZZ_CHECK(page.size() <= options.max_page_items);
  std::vector<crawler::FetchedIssue> items;
  for (Json& issue : page) {
    if (!issue.is_object() || !opt_int(issue, "number")) return 0;  // "an issue without a number"
    if (!fuzz::admit_as_crawl_does(issue)) continue;
    crawler::FetchedIssue it{issue, *opt_int(issue, "number"), true};
    for (auto [key, target, have] : {std::tuple{"_comments", &it.comments, &it.have_comments},
                                     std::tuple{"_timeline", &it.timeline, &it.have_timeline}}) {
      auto found = issue.find(key);
      if (found == issue.end() || !found->is_array()) continue;
      *target = *found;
      *have = true;
      it.issue.erase(key);
    }
    items.push_back(std::move(it));
  }
  fuzz::store_page_as_crawl_does(items);
  return 0;
}
