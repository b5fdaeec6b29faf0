// Crawl benchmark against the in-process fake GitHub server with per-request latency:
// (a) convfail defaults (concurrency 4), (b) convfail --concurrency 1, (c) the naive baseline the
// study used (every page, comment list and timeline fetched again, sequentially, no ETags, no
// since=), each followed by a second, unchanged refresh. Prints requests, full (200) responses,
// 304s and wall time, and the ratios; then (d) the GraphQL crawl (`--api graphql`) on the same
// repository beside (a): requests, rate-limit units (REST: requests answered in full, as 304s
// are free; GraphQL: points), wall time, and its unchanged refresh.
// Ends with the JSON line {"bench": "crawl", "ratio": naive (c) wall / convfail (a) wall, ...}
// (without (c): REST requests answered in full / GraphQL points); exits 1 when the crawls stored
// different issue counts.
// Usage: bench_crawl [--issues N] [--latency-ms L] [--skip-slow 1] (skips (b) and (c)) [--quick]
//        (--quick: 60 issues, 2 ms latency, every crawl)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "bench/figures.h"
#include "core/http.h"
#include "core/issue_store.h"
#include "core/migrations.h"
#include "crawler/crawler.h"
#include "crawler/link_header.h"
#include "tests/fake_github/fake_github.h"
#include "tests/unit/test_helpers.h"

using namespace convfail;

namespace {

const char* kRepo = "onnx/tensorflow-onnx";

struct Figures {
  long long requests = 0, full = 0, not_modified = 0, issues = 0, points = 0;
  double seconds = 0;
};

double timed(const std::function<void()>& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Figures from_server(const fake::FakeGitHub& server, std::size_t log_from) {
  Figures f;
  auto log = server.log();
  for (std::size_t i = log_from; i < log.size(); ++i) {
    ++f.requests;
    f.full += log[i].status == 200;
    f.not_modified += log[i].status == 304;
  }
  return f;
}

Figures run_convfail(fake::FakeGitHub& server, Db& db, int concurrency, const char* api = "rest") {
  crawler::CrawlOptions o;
  o.repo = kRepo;
  o.state = "all";
  o.api_url = server.url();
  o.api.concurrency = concurrency;
  o.api_kind = api;
  if (std::strcmp(api, "graphql") == 0) o.api.token = "bench-token";
  std::size_t from = server.log().size();
  crawler::CrawlSummary s;
  double t = timed([&] { s = crawler::crawl(db, o); });
  Figures f = from_server(server, from);
  f.seconds = t;
  f.points = s.points_used;
  f.issues = db.scalar("SELECT count(*) FROM issues");
  return f;
}

// The naive baseline: sequential, no validators, no since=, everything fetched every time.
Figures run_naive(fake::FakeGitHub& server, Db& db) {
  std::size_t from = server.log().size();
  http::Client client;
  IssueStore store(db);
  long long issues = 0;
  auto get = [&](const std::string& url, std::optional<std::string>* next) {
    http::Request req;
    req.url = url;
    req.headers = {{"Accept", "application/vnd.github+json"}, {"User-Agent", "naive"}};
    http::Response r = client.perform(req);
    if (r.status != 200) {
      std::fprintf(stderr, "naive: GET %s: %ld %s\n", url.c_str(), r.status, r.error.c_str());
      std::exit(1);
    }
    if (next)
      *next = r.header("link") ? crawler::link_with_rel(*r.header("link"), "next") : std::nullopt;
    return Json::parse(r.body);
  };
  auto all_pages = [&](std::string url) {
    Json out = Json::array();
    while (!url.empty()) {
      std::optional<std::string> next;
      for (Json& e : get(url, &next)) out.push_back(std::move(e));
      url = next.value_or("");
    }
    return out;
  };
  double t = timed([&] {
    std::string url = server.url() + "/repos/" + kRepo + "/issues?state=all&per_page=100";
    while (!url.empty()) {
      std::optional<std::string> next;
      Json page = get(url, &next);
      Transaction tx(db);
      for (const Json& issue : page) {
        if (issue.contains("pull_request")) continue;
        std::string base = server.url() + "/repos/" + kRepo + "/issues/" +
                           std::to_string(issue["number"].get<int>());
        Json comments = all_pages(base + "/comments?per_page=100");
        Json timeline = all_pages(base + "/timeline?per_page=100");
        std::int64_t id = 0;
        store.upsert_issue(kRepo, issue, &id);
        store.store_comments(id, comments);
        store.store_timeline(id, kRepo, timeline);
        ++issues;
      }
      tx.commit();
      url = next.value_or("");
    }
  });
  Figures f = from_server(server, from);
  f.seconds = t;
  (void)issues;
  f.issues = db.scalar("SELECT count(*) FROM issues");
  return f;
}

void print(const char* name, const Figures& f) {
  std::printf("%-34s %7lld issues stored %7lld requests %7lld full %7lld 304 %9.2f s\n", name,
              f.issues, f.requests, f.full, f.not_modified, f.seconds);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = bench::quick_mode(argc, argv);
  int issues = quick ? 60 : 5000, latency = quick ? 2 : 20;
  bool skip_slow = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) continue;
    if (i + 1 < argc && !std::strcmp(argv[i], "--skip-slow")) {
      skip_slow = std::atoi(argv[++i]) != 0;
    } else if (i + 1 < argc && !std::strcmp(argv[i], "--issues")) {
      issues = std::atoi(argv[++i]);
    } else if (i + 1 < argc && !std::strcmp(argv[i], "--latency-ms")) {
      latency = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: bench_crawl [--issues N] [--latency-ms L] [--skip-slow 1] [--quick]\n");
      return 2;
    }
  }
  if (issues < 1 || latency < 0) {
    std::fprintf(stderr, "bench_crawl: --issues must be positive, --latency-ms not negative\n");
    return 2;
  }
  fake::FakeGitHubOptions so;
  so.issues = issues + issues / 6;  // every 7th number is a pull request: ~`issues` issues
  so.latency_ms = latency;
  fake::FakeGitHub server(so);
  std::printf(
      "bench_crawl: %d issues wanted (%d numbers incl. pull requests), %d ms latency per "
      "request, fake GitHub at %s\n",
      issues, so.issues, latency, server.url().c_str());
  test::TempDir dir;

  auto db_a = open_database(dir.file("a.db"));
  Figures a = run_convfail(server, *db_a, 4);
  print("(a) convfail, defaults", a);
  Figures a2 = run_convfail(server, *db_a, 4);
  print("(a) refresh, unchanged", a2);

  auto db_d = open_database(dir.file("d.db"));
  Figures d = run_convfail(server, *db_d, 4, "graphql");
  print("(d) convfail --api graphql", d);
  Figures d2 = run_convfail(server, *db_d, 4, "graphql");
  print("(d) refresh, unchanged", d2);
  long long rest_units = a.requests - a.not_modified;
  std::printf(
      "GraphQL (d) vs REST (a) first crawl: %lld vs %lld requests; rate-limit units %lld points "
      "vs %lld REST requests = %.1fx fewer (goal: >= 20x); wall %.2f s vs %.2f s = %.1fx less "
      "(goal: >= 5x)\n",
      d.requests, a.requests, d.points, rest_units,
      static_cast<double>(rest_units) / static_cast<double>(std::max(1LL, d.points)), d.seconds,
      a.seconds, a.seconds / d.seconds);
  std::printf("GraphQL refresh, unchanged: %lld request(s), %lld point(s), %.3f s (goal: 1)\n",
              d2.requests, d2.points, d2.seconds);
  bool same_ad =
      db_a->scalar("SELECT count(*) FROM issues") == db_d->scalar("SELECT count(*) FROM issues");
  std::printf("same issue count in (a) and (d): %s\n", same_ad ? "yes" : "NO");
  double points_ratio =
      static_cast<double>(rest_units) / static_cast<double>(std::max(1LL, d.points));
  nlohmann::json figures = {{"issues", a.issues},
                            {"latency_ms", latency},
                            {"rest_requests", a.requests},
                            {"rest_seconds", a.seconds},
                            {"rest_refresh_requests", a2.requests},
                            {"rest_refresh_304", a2.not_modified},
                            {"graphql_requests", d.requests},
                            {"graphql_points", d.points},
                            {"graphql_seconds", d.seconds},
                            {"graphql_refresh_requests", d2.requests},
                            {"graphql_points_ratio", points_ratio}};
  if (skip_slow) {
    std::fflush(stdout);
    bench::print_figures("crawl", points_ratio, "REST requests answered in full / GraphQL points",
                         quick, figures);
    return same_ad ? 0 : 1;
  }

  auto db_b = open_database(dir.file("b.db"));
  Figures b = run_convfail(server, *db_b, 1);
  print("(b) convfail --concurrency 1", b);
  Figures b2 = run_convfail(server, *db_b, 1);
  print("(b) refresh, unchanged", b2);

  auto db_c = open_database(dir.file("c.db"));
  Figures c = run_naive(server, *db_c);
  print("(c) naive baseline", c);
  Figures c2 = run_naive(server, *db_c);
  print("(c) naive refresh, unchanged", c2);

  std::printf("speed-up (c)/(a) first crawl: %.2fx wall, %.2fx requests (goal: >= 3x wall)\n",
              c.seconds / a.seconds, static_cast<double>(c.requests) / a.requests);
  std::printf("speed-up (c)/(b) first crawl: %.2fx wall\n", c.seconds / b.seconds);
  std::printf(
      "refresh: convfail %lld requests (%lld full, %lld 304) in %.3f s vs naive %lld "
      "requests in %.2f s (goal: only 304s)\n",
      a2.requests, a2.full, a2.not_modified, a2.seconds, c2.requests, c2.seconds);
  bool same =
      db_a->scalar("SELECT count(*) FROM issues") == db_c->scalar("SELECT count(*) FROM issues");
  std::printf("same issue count in (a) and (c): %s\n", same ? "yes" : "NO");
  std::fflush(stdout);
  figures["concurrency1_seconds"] = b.seconds;
  figures["naive_requests"] = c.requests;
  figures["naive_seconds"] = c.seconds;
  figures["naive_refresh_requests"] = c2.requests;
  bench::print_figures("crawl", c.seconds / a.seconds, "naive crawl wall / convfail crawl wall",
                       quick, figures);
  return same && same_ad ? 0 : 1;
}
