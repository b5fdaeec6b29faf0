// The crawler against the fake GitHub server: the issue's tests 1, 2, 3, 5 (database part) and 6,
// plus rate limits, retries exhausted then resumed, filters and --max-issues.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <set>

#include <re2/re2.h>

#include "core/error.h"
#include "core/migrations.h"
#include "crawler/crawl_state.h"
#include "crawler/crawler.h"
#include "test_helpers.h"
#include "tests/fake_github/fake_github.h"

using namespace convfail;
using namespace convfail::crawler;

namespace {

const char* kRepo = "onnx/tensorflow-onnx";

// Everything a crawl stores about issues, in a canonical order, without timestamps of storage,
// and with the fake server's origin (its port) made neutral: the data names its server's URLs.
std::string dump(Db& db) {
  std::string out;
  const char* queries[] = {
      "SELECT r.full_name, i.number, i.title, i.body, i.state, i.updated_at, i.closed_at, "
      "i.comment_count, i.has_fix_link, i.is_pull_request, i.raw_json FROM issues i JOIN "
      "repositories r ON r.id=i.repo_id ORDER BY 1, 2",
      "SELECT i.number, l.name FROM issue_labels l JOIN issues i ON i.id=l.issue_id ORDER BY 1, 2",
      "SELECT i.number, c.position, c.github_id, c.body, c.raw_json FROM comments c JOIN issues i "
      "ON i.id=c.issue_id ORDER BY 1, 2",
      "SELECT i.number, e.position, e.event, e.commit_id, e.source_repo, e.source_state, "
      "e.raw_json FROM timeline_events e JOIN issues i ON i.id=e.issue_id ORDER BY 1, 2"};
  for (const char* q : queries) {
    Stmt st(db, q);
    while (st.step()) {
      for (int c = 0; c < st.column_count(); ++c) out += st.text(c) + "\x1f";
      out += "\n";
    }
    out += "--\n";
  }
  RE2::GlobalReplace(&out, R"(http://127\.0\.0\.1:\d+)", "ORIGIN");
  return out;
}

crawler::CrawlOptions fast_options(const fake::FakeGitHub& server) {
  crawler::CrawlOptions o;
  o.repo = kRepo;
  o.api_url = server.url();
  o.api.backoff_base_s = 0.01;
  o.api.backoff_max_s = 0.05;
  o.api.rate_floor = 0;
  return o;
}

std::set<int> detail_issues(const std::vector<fake::LoggedRequest>& log) {
  std::set<int> out;
  for (const auto& r : log) {
    auto p = r.path.find("/issues/");
    if (p != std::string::npos) out.insert(std::stoi(r.path.substr(p + 8)));
  }
  return out;
}

}  // namespace

TEST_CASE("crawl: a faulty server ends with the same database as a clean one (test 1)") {
  test::TempDir dir;
  fake::FakeGitHubOptions clean_opt;
  clean_opt.issues = 250;
  fake::FakeGitHub clean(clean_opt);
  auto clean_db = open_database(dir.file("clean.db"));
  crawler::CrawlSummary c = crawler::crawl(*clean_db, fast_options(clean));
  CHECK(c.complete);
  CHECK(c.api.retries == 0);

  fake::FakeGitHubOptions faulty_opt = clean_opt;
  faulty_opt.fault_rate = 0.3;
  faulty_opt.seed = 7;
  faulty_opt.retry_after_s = 0;
  fake::FakeGitHub faulty(faulty_opt);
  auto faulty_db = open_database(dir.file("faulty.db"));
  crawler::CrawlSummary f = crawler::crawl(*faulty_db, fast_options(faulty));
  CHECK(f.complete);
  // Every kind of fault was served and survived.
  std::set<int> statuses;
  for (const auto& r : faulty.log()) statuses.insert(r.status);
  CHECK(statuses.count(500));
  CHECK(statuses.count(502));
  CHECK(statuses.count(403));
  CHECK(statuses.count(0));  // cut connections
  CHECK(f.api.retries > 20);
  CHECK(f.new_issues == c.new_issues);
  CHECK(dump(*faulty_db) == dump(*clean_db));
  CHECK(clean_db->scalar("SELECT count(*) FROM issues") > 150);
}

TEST_CASE("crawl: an immediate second crawl only sends conditional requests, all 304 (test 2)") {
  test::TempDir dir;
  fake::FakeGitHubOptions so;
  so.issues = 150;
  fake::FakeGitHub server(so);
  auto db = open_database(dir.file("c.db"));
  crawler::crawl(*db, fast_options(server));
  std::string before = dump(*db);
  server.clear_log();
  crawler::CrawlSummary s = crawler::crawl(*db, fast_options(server));
  auto log = server.log();
  REQUIRE_FALSE(log.empty());
  for (const auto& r : log) {
    CHECK(r.conditional);
    CHECK(r.status == 304);
  }
  CHECK(s.api.requests == static_cast<std::int64_t>(log.size()));
  CHECK(s.api.not_modified == s.api.requests);
  CHECK(s.new_issues == 0);
  CHECK(s.updated_issues == 0);
  CHECK(dump(*db) == before);
}

TEST_CASE("crawl: after two issues change, a re-crawl fetches just those two (test 3)") {
  test::TempDir dir;
  fake::FakeGitHubOptions so;
  so.issues = 150;
  fake::FakeGitHub server(so);
  auto db = open_database(dir.file("c.db"));
  crawler::crawl(*db, fast_options(server));
  // Two closed issues (not pull requests): 11 is closed, 12 is closed.
  std::vector<int> changed = {12, 41};
  for (int n : changed) REQUIRE((server.is_closed(n) && !server.is_pull_request(n)));
  std::int64_t comments_before = db->scalar("SELECT count(*) FROM comments");
  db->exec(
      "INSERT INTO manual_labels (issue_id, annotator, dimension, value) SELECT id, 'ann', "
      "'symptom', 'crash' FROM issues WHERE number=12");
  server.change_issues(changed);
  server.clear_log();
  crawler::CrawlSummary s = crawler::crawl(*db, fast_options(server));
  CHECK(s.updated_issues == 2);
  CHECK(s.new_issues == 0);
  CHECK(detail_issues(server.log()) == std::set<int>(changed.begin(), changed.end()));
  // Each changed issue gained one comment and one timeline event.
  CHECK(db->scalar("SELECT count(*) FROM comments") == comments_before + 2);
  CHECK(db->scalar("SELECT count(*) FROM issues WHERE body LIKE '%(edited 1 times)'") == 2);
  CHECK(db->scalar("SELECT count(*) FROM manual_labels") == 1);
  // And the next run is back to 304s only.
  server.clear_log();
  crawler::crawl(*db, fast_options(server));
  for (const auto& r : server.log()) CHECK(r.status == 304);
}

TEST_CASE("crawl: has_fix_link follows the four timeline rules (test 6)") {
  test::TempDir dir;
  fake::FakeGitHubOptions so;
  so.issues = 300;
  fake::FakeGitHub server(so);
  auto db = open_database(dir.file("c.db"));
  crawler::CrawlOptions o = fast_options(server);
  o.state = "all";
  crawler::crawl(*db, o);
  Stmt st(*db, "SELECT number, has_fix_link FROM issues ORDER BY number");
  int with = 0, without = 0, checked = 0;
  while (st.step()) {
    int n = static_cast<int>(st.int64(0));
    bool got = st.int64(1) == 1;
    CHECK_MESSAGE(got == server.expected_fix_link(n), "issue ", n);
    (got ? with : without)++;
    ++checked;
  }
  CHECK(checked > 200);
  CHECK(with > 30);
  CHECK(without > 30);
  // Decoys exist: closed without commit, cross-references from open or other-repo issues.
  CHECK(db->scalar("SELECT count(*) FROM timeline_events e JOIN issues i ON i.id=e.issue_id "
                   "WHERE e.event='cross-referenced' AND i.has_fix_link=0") > 0);
}

TEST_CASE("crawl: labels, excluded labels, state and pull requests filter like the study") {
  test::TempDir dir;
  fake::FakeGitHubOptions so;
  so.issues = 300;
  fake::FakeGitHub server(so);
  auto db = open_database(dir.file("c.db"));
  crawler::CrawlOptions o = fast_options(server);
  o.labels = {"module: onnx"};
  o.exclude_labels = {"question", "pending on user response"};
  crawler::CrawlSummary s = crawler::crawl(*db, o);
  std::set<int> expected;
  for (int n = 1; n <= so.issues; ++n) {
    auto l = server.labels(n);
    auto has = [&](const char* x) { return std::find(l.begin(), l.end(), x) != l.end(); };
    if (server.is_closed(n) && !server.is_pull_request(n) && has("module: onnx") &&
        !has("question") && !has("pending on user response"))
      expected.insert(n);
  }
  std::set<int> got;
  Stmt st(*db, "SELECT number FROM issues");
  while (st.step()) got.insert(static_cast<int>(st.int64(0)));
  CHECK(got == expected);
  CHECK(s.pull_requests_skipped > 0);
  CHECK(s.excluded > 0);
  // Issues with more than 100 comments or timeline events were paginated completely.
  CHECK(db->scalar("SELECT max(c) FROM (SELECT count(*) c FROM comments GROUP BY issue_id)") >= 0);
  for (int n : {97, 194}) {
    if (!expected.count(n)) continue;
    Stmt c(*db,
           "SELECT count(*) FROM comments c JOIN issues i ON i.id=c.issue_id WHERE i.number=?");
    c.bind(1, static_cast<std::int64_t>(n));
    REQUIRE(c.step());
    CHECK(c.int64(0) == server.comment_count(n));
  }
}

TEST_CASE("crawl: long comment and timeline lists follow rel=next") {
  test::TempDir dir;
  fake::FakeGitHubOptions so;
  so.issues = 300;
  fake::FakeGitHub server(so);
  auto db = open_database(dir.file("c.db"));
  crawler::CrawlOptions o = fast_options(server);
  o.state = "all";
  crawler::crawl(*db, o);
  REQUIRE_FALSE(server.is_pull_request(267));
  auto count = [&](const char* table, int n) {
    Stmt c(*db, std::string("SELECT count(*) FROM ") + table +
                    " x JOIN issues i ON i.id=x.issue_id WHERE i.number=?");
    c.bind(1, static_cast<std::int64_t>(n));
    REQUIRE(c.step());
    return c.int64(0);
  };
  CHECK(count("comments", 97) == 105);
  CHECK(count("comments", 194) == 105);
  CHECK(count("timeline_events", 89) > 110);
  CHECK(count("timeline_events", 267) > 110);
}

TEST_CASE("crawl: the rate-limit budget forces a wait at the floor, without hammering") {
  test::TempDir dir;
  fake::FakeGitHubOptions so;
  so.issues = 40;
  so.rate_limit = 25;
  so.rate_window_s = 1;
  fake::FakeGitHub server(so);
  auto db = open_database(dir.file("c.db"));
  crawler::CrawlOptions o = fast_options(server);
  o.api.rate_floor = 2;
  std::vector<std::string> notices;
  crawler::CrawlSummary s =
      crawler::crawl(*db, o, [&](const std::string& m) { notices.push_back(m); });
  CHECK(s.complete);
  CHECK(s.api.requests > 25);
  CHECK(s.api.rate_limit_waits >= 1);
  CHECK(s.api.rate_limit_wait_s > 0);
  CHECK(s.api.rate_limit_wait_s < 6);
  REQUIRE_FALSE(notices.empty());
  CHECK(notices[0].find("rate limit") != std::string::npos);
  int rejected = 0;
  for (const auto& r : server.log()) rejected += r.status == 403;
  CHECK(rejected == 0);

  fake::FakeGitHubOptions clean_opt;
  clean_opt.issues = 40;
  fake::FakeGitHub clean(clean_opt);
  auto clean_db = open_database(dir.file("clean.db"));
  crawler::crawl(*clean_db, fast_options(clean));
  CHECK(dump(*db) == dump(*clean_db));
}

TEST_CASE("crawl: 403 with Retry-After waits as told") {
  test::TempDir dir;
  fake::FakeGitHubOptions so;
  so.issues = 12;
  so.fault_rate = 1.0;  // every URL faults twice
  so.retry_after_s = 1;
  fake::FakeGitHub server(so);
  auto db = open_database(dir.file("c.db"));
  crawler::CrawlOptions o = fast_options(server);
  o.comments = false;
  crawler::CrawlSummary s = crawler::crawl(*db, o);
  CHECK(s.complete);
  bool told = false;
  for (const auto& r : server.log()) told |= r.status == 403;
  REQUIRE(told);
  CHECK(s.api.rate_limit_wait_s >= 1.0);
}

TEST_CASE("crawl: retries are bounded, the error names the URL and the next run resumes") {
  test::TempDir dir;
  fake::FakeGitHubOptions so;
  so.issues = 120;
  so.fault_rate = 1.0;
  so.retry_after_s = 0;
  fake::FakeGitHub server(so);
  auto db = open_database(dir.file("c.db"));
  crawler::CrawlOptions o = fast_options(server);
  o.api.max_retries = 0;
  bool threw = false;
  try {
    crawler::crawl(*db, o);
  } catch (const UserError& e) {
    threw = true;
    CHECK(std::string(e.what()).find("GET http://127.0.0.1") != std::string::npos);
  }
  CHECK(threw);
  CHECK(db->scalar("SELECT count(*) FROM crawl_state WHERE last_error IS NOT NULL") == 1);
  // Faults stop after two per URL: a run with retries completes and matches a clean crawl.
  o.api.max_retries = 6;
  crawler::CrawlSummary s = crawler::crawl(*db, o);
  CHECK(s.complete);
  CHECK(db->scalar("SELECT count(*) FROM crawl_state WHERE last_error IS NOT NULL") == 0);
  fake::FakeGitHubOptions co;
  co.issues = 120;
  fake::FakeGitHub clean(co);
  auto clean_db = open_database(dir.file("clean.db"));
  crawler::crawl(*clean_db, fast_options(clean));
  CHECK(dump(*db) == dump(*clean_db));
}

TEST_CASE("crawl: --max-issues stops early and the next run continues to the same result") {
  test::TempDir dir;
  fake::FakeGitHubOptions so;
  so.issues = 150;
  fake::FakeGitHub server(so);
  auto db = open_database(dir.file("c.db"));
  crawler::CrawlOptions o = fast_options(server);
  o.max_issues = 30;
  crawler::CrawlSummary first = crawler::crawl(*db, o);
  CHECK_FALSE(first.complete);
  CHECK(db->scalar("SELECT count(*) FROM issues") == 30);
  crawler::CrawlSummary second = crawler::crawl(*db, o);
  CHECK(db->scalar("SELECT count(*) FROM issues") == 60);
  CHECK(second.new_issues == 30);
  o.max_issues = 0;
  CHECK(crawler::crawl(*db, o).complete);
  auto clean_db = open_database(dir.file("clean.db"));
  crawler::crawl(*clean_db, fast_options(server));
  CHECK(dump(*db) == dump(*clean_db));
}

TEST_CASE("crawl: the token is sent, but never stored in the database (test 5, database part)") {
  test::TempDir dir;
  fake::FakeGitHubOptions so;
  so.issues = 60;
  so.fault_rate = 0.2;
  so.retry_after_s = 0;
  fake::FakeGitHub server(so);
  const std::string token = "ghp_TestTokenNeverStored0123456789";
  {
    auto db = open_database(dir.file("c.db"));
    crawler::CrawlOptions o = fast_options(server);
    o.api.token = token;
    crawler::crawl(*db, o);
    db->exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }
  for (const auto& r : server.log()) CHECK(r.authorization == "Bearer " + token);
  for (const char* f : {"c.db", "c.db-wal"}) {
    std::ifstream in(dir.file(f), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(bytes.find(token) == std::string::npos);
    CHECK(bytes.find("TestTokenNever") == std::string::npos);
  }
}

TEST_CASE(
    "crawl: an object that breaks the schema stops the crawl naming the issue; its page is not "
    "stored") {
  test::TempDir dir;
  fake::FakeGitHubOptions so;
  so.issues = 30;
  int plain = 0;  // an issue a clean crawl stores (pull requests and filtered ones are not)
  {
    fake::FakeGitHub probe(so);
    auto probe_db = open_database(dir.file("probe.db"));
    crawler::crawl(*probe_db, fast_options(probe));
    plain = static_cast<int>(probe_db->scalar("SELECT max(number) FROM issues"));
  }
  REQUIRE(plain > 0);
  so.bad_title_issue = plain;
  fake::FakeGitHub server(so);
  auto db = open_database(dir.file("c.db"));
  crawler::CrawlOptions o = fast_options(server);
  try {
    crawler::crawl(*db, o);
    FAIL("the crawl accepted a number as a title");
  } catch (const UserError& e) {
    std::string what = e.what();
    CHECK(what.find("#" + std::to_string(plain) + " as served by http://127.0.0.1:") !=
          std::string::npos);
    CHECK(what.find("title") != std::string::npos);
  }
  Stmt q(*db, "SELECT count(*) FROM issues WHERE number = ?");
  q.bind(1, static_cast<std::int64_t>(plain));
  REQUIRE(q.step());
  CHECK(q.int64(0) == 0);
}

TEST_CASE("crawl: bad options are usage errors") {
  test::TempDir dir;
  auto db = open_database(dir.file("c.db"));
  crawler::CrawlOptions o;
  o.repo = "not-a-repo";
  CHECK_THROWS_AS(crawler::crawl(*db, o), UsageError);
  o.repo = "a/b";
  o.state = "merged";
  CHECK_THROWS_AS(crawler::crawl(*db, o), UsageError);
  o.state = "closed";
  o.since = "yesterday";
  CHECK_THROWS_AS(crawler::crawl(*db, o), UsageError);
  o.since.reset();
  o.api_url = "ftp://example";
  CHECK_THROWS_AS(crawler::crawl(*db, o), UsageError);
  CHECK_THROWS_AS(crawler::preset_crawls("nope", o), UsageError);
  auto p = crawler::preset_crawls("jajal2024", o);
  REQUIRE(p.size() == 2);
  CHECK(p[0].repo == "pytorch/pytorch");
  CHECK(p[0].labels == std::vector<std::string>{"module: onnx"});
  CHECK(p[1].exclude_labels.size() == 2);
}

TEST_CASE("crawl: an issue updated during the crawl neither hides another one nor goes stale") {
  test::TempDir dir;
  fake::FakeGitHubOptions so;
  so.issues = 400;
  fake::FakeGitHub server(so);
  auto db = open_database(dir.file("c.db"));
  crawler::CrawlOptions o = fast_options(server);
  // After the first listing page is stored, an issue of that page is edited: it moves to the
  // end of the sort order and the rest of the listing shifts up by one.
  bool edited = false;
  int edited_number = 0;
  crawler::CrawlSummary s = crawler::crawl(*db, o, {}, [&](const crawler::CrawlSummary& p) {
    if (edited || p.pages < 1) return;
    edited = true;
    Stmt st(*db, "SELECT number FROM issues ORDER BY updated_at DESC LIMIT 1");
    REQUIRE(st.step());
    edited_number = static_cast<int>(st.int64(0));
    server.change_issues({edited_number});
  });
  REQUIRE(edited);
  CHECK(s.complete);
  // The same as a crawl of a server that was edited before the crawl started.
  fake::FakeGitHub reference(so);
  reference.change_issues({edited_number});
  auto ref_db = open_database(dir.file("ref.db"));
  crawler::crawl(*ref_db, fast_options(reference));
  CHECK(db->scalar("SELECT count(*) FROM issues") == ref_db->scalar("SELECT count(*) FROM issues"));
  CHECK(dump(*db) == dump(*ref_db));
}

TEST_CASE("crawl: a renamed repository moves to its new name, the next run is not redirected") {
  test::TempDir dir;
  fake::FakeGitHubOptions so;
  so.issues = 40;
  so.rename_from = "old/name";
  so.rename_to = "new/name";
  fake::FakeGitHub server(so);
  auto db = open_database(dir.file("c.db"));
  crawler::CrawlOptions o = fast_options(server);
  o.repo = "old/name";
  crawler::CrawlSummary first = crawler::crawl(*db, o);
  CHECK(first.complete);
  CHECK(first.repo == "new/name");
  CHECK(db->scalar("SELECT count(*) FROM repositories") == 1);
  CHECK(db->scalar("SELECT count(*) FROM repositories WHERE full_name='new/name' AND "
                   "github_id=" +
                   std::to_string(fake::fake_repository_id("new/name"))) == 1);
  CHECK(db->scalar("SELECT count(*) FROM issues") > 20);
  auto log = server.log();
  CHECK(first.api.requests == static_cast<std::int64_t>(log.size()));  // redirects counted
  server.clear_log();
  crawler::CrawlSummary second = crawler::crawl(*db, o);
  CHECK(second.repo == "new/name");
  for (const auto& r : server.log()) {
    CHECK(r.status != 301);
    CHECK(r.path.find("/repos/old/") == std::string::npos);
  }
  CHECK(second.api.requests == static_cast<std::int64_t>(server.log().size()));
}

TEST_CASE("crawl: record_rename onto a name already stored keeps both and aliases the old one") {
  test::TempDir dir;
  auto db = open_database(dir.file("c.db"));
  db->exec("INSERT INTO repositories (full_name) VALUES ('a/old'), ('a/new')");
  crawler::record_rename(*db, "a/old", "a/new", 42);
  CHECK(crawler::current_repository_name(*db, "a/old") == "a/new");
  CHECK(crawler::current_repository_name(*db, "A/OLD") == "a/new");  // names are case-blind
  CHECK(crawler::current_repository_name(*db, "b/other") == "b/other");
  CHECK(db->scalar("SELECT github_id FROM repositories WHERE full_name='a/new'") == 42);
  CHECK(db->scalar("SELECT count(*) FROM repositories") == 2);
  // Renamed back: the name is current again, not an alias of itself.
  crawler::record_rename(*db, "a/new", "a/old", 42);
  CHECK(crawler::current_repository_name(*db, "a/old") == "a/old");
}
