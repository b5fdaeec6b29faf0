// Prints the crawler's GraphQL query of a page of issues, for make_seeds.py (which asks the fake
// GitHub server for a page, as the crawl would).
#include <cstdio>

#include "crawler/graphql_query.h"

int main() {
  std::fputs(convfail::crawler::kIssuesQuery, stdout);
  return 0;
}
