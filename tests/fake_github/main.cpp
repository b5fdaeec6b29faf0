// build/fake-github: the test suite's fake GitHub API as a standalone server on 127.0.0.1.
// Prints its URL on stdout, then serves until SIGINT or SIGTERM.
#include <signal.h>

#include <iostream>

#include <CLI/CLI.hpp>

#include "tests/fake_github/fake_github.h"

int main(int argc, char** argv) {
  convfail::fake::FakeGitHubOptions o;
  CLI::App app{
      "A fake GitHub REST and GraphQL API (issues, comments, timelines) on 127.0.0.1 for\n"
      "trying and testing `convfail crawl`; POST /graphql wants any non-empty token.\n"
      "POST /_admin/change?issues=1,2 edits issues;\n"
      "GET /_admin/log lists the requests received (with their Authorization header).",
      "fake-github"};
  app.add_option("--port", o.port, "port on 127.0.0.1 (0: a free one)")->capture_default_str();
  app.add_option("--issues", o.issues, "number of issues and pull requests")->capture_default_str();
  app.add_option("--latency-ms", o.latency_ms, "delay per request")->capture_default_str();
  app.add_option("--fault-rate", o.fault_rate,
                 "probability of a fault (500, 502, cut connection, truncated JSON, 403 "
                 "Retry-After; on /graphql also GitHub's 502 timeout answer) on a URL's (a "
                 "GraphQL body's) first two requests")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--seed", o.seed, "fault seed (data does not depend on it)")
      ->capture_default_str();
  app.add_option("--rate-limit", o.rate_limit, "full responses per window (0: unlimited)")
      ->capture_default_str();
  app.add_option("--rate-window", o.rate_window_s, "rate-limit window in seconds")
      ->capture_default_str();
  app.add_option("--retry-after", o.retry_after_s, "Retry-After of secondary-limit faults")
      ->capture_default_str();
  std::string rename;
  app.add_option("--rename", rename,
                 "OLD/NAME=NEW/NAME: the old name answers 301 to /repositories/<id> (a renamed "
                 "repository)");
  app.add_flag("--old-format", o.old_format,
               "pre-2014 API dumps: plain issues carry a pull_request object of nulls");
  app.add_flag("--bare-rate-limit", o.bare_rate_limit,
               "rate-limit 403s come without X-RateLimit-Reset and Retry-After");
  app.add_option("--link-next-to", o.link_next_to,
                 "hostile: every listing page's Link next points to this origin");
  app.add_option("--redirect-to", o.redirect_to,
                 "hostile: the listing answers 302 to the same path on this origin");
  app.add_option("--self-link", o.self_link,
                 "hostile: Link next of the listing or of comment pages points to the page itself")
      ->check(CLI::IsMember({"listing", "comments"}));
  app.add_option("--huge-body-mb", o.huge_body_mb,
                 "hostile: the listing streams this many MB without Content-Length")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--gzip-bomb-mb", o.gzip_bomb_mb,
                 "hostile: the listing is a gzip body that inflates to this many MB")
      ->check(CLI::Range(0, 1 << 16));
  app.add_flag("--escape-error", o.escape_error,
               "hostile: the listing answers 400 with ESC/OSC sequences in its message");
  app.add_option("--detail-urls-to", o.detail_urls_to,
                 "hostile: issues' comments_url and timeline_url point to this origin");
  app.add_option("--bad-title-issue", o.bad_title_issue,
                 "hostile: this issue's title is a number, not a string");
  app.add_option("--graphql-timeout-above", o.graphql_timeout_above,
                 "GraphQL: issue pages larger than this answer 502 'Something went wrong' (a "
                 "timeout); 0: never")
      ->check(CLI::Range(0, 100));
  app.add_option("--graphql-partial-issue", o.graphql_partial_issue,
                 "GraphQL: this issue's timeline items resolve to an error (partial data)");
  app.add_option("--missing-repo", o.missing_repo,
                 "GraphQL: this OWNER/NAME answers NOT_FOUND (HTTP 200 with errors)");
  app.add_option("--graphql-shape", o.graphql_shape,
                 "GraphQL as GitHub really answers (see fake_github.h): rate-limit, "
                 "rate-limited, secondary, html-timeout, resource-limits, node-limit, "
                 "no-endpoint-404, no-endpoint-501")
      ->check(
          CLI::IsMember({"rate-limit", "rate-limited", "secondary", "html-timeout",
                         "resource-limits", "node-limit", "no-endpoint-404", "no-endpoint-501"}));
  app.add_flag("--big-ids", o.big_ids, "issue and comment ids above 2^31 and 2^53");
  app.add_flag("--deleted-users", o.deleted_users,
               "some authors and actors are deleted accounts (REST: ghost, GraphQL: null)");
  app.add_flag("--endless-pages", o.endless_pages,
               "hostile: the listing repeats its first page forever under fresh pages/cursors");
  app.add_option("--empty-objects-mb", o.empty_objects_mb,
                 "hostile: the listing is a page of this many MB of empty objects")
      ->check(CLI::Range(0, 4096));
  app.add_option("--deep-issue", o.deep_issue,
                 "hostile: this issue carries a value nested --deep-levels arrays deep (REST: "
                 "its performed_via_github_app; GraphQL: a renamed-title item's previousTitle)");
  app.add_option("--deep-levels", o.deep_levels, "nesting of --deep-issue's value")
      ->check(CLI::Range(0, 10000000))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (!rename.empty()) {
    auto eq = rename.find('=');
    if (eq == std::string::npos) {
      std::cerr << "fake-github: --rename takes OLD/NAME=NEW/NAME\n";
      return 2;
    }
    o.rename_from = rename.substr(0, eq);
    o.rename_to = rename.substr(eq + 1);
  }

  // Block the stop signals in every thread; the main thread waits for them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  try {
    convfail::fake::FakeGitHub server(o);
    std::cout << server.url() << std::endl;
    int sig = 0;
    sigwait(&set, &sig);
    server.stop();
  } catch (const std::exception& e) {
    std::cerr << "fake-github: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
