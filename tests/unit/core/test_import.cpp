#include <doctest/doctest.h>

#include <fstream>

#include "core/error.h"
#include "core/importer.h"
#include "core/issue_store.h"
#include "core/migrations.h"
#include "test_helpers.h"

using namespace convfail;

namespace {

// Row counts of every table that import touches: the "database unchanged" fingerprint.
std::string fingerprint(Db& db) {
  std::string out;
  for (const char* t : {"repositories", "issues", "issue_labels", "comments", "timeline_events"}) {
    out += std::string(t) + "=" +
           std::to_string(db.scalar(std::string("SELECT count(*) FROM ") + t)) + " ";
  }
  Stmt st(db, "SELECT group_concat(raw_json, '|') FROM issues");
  st.step();
  return out + st.text(0);
}

const char* kRestArray = R"([
  {"id": 11, "number": 1, "title": "Export fails for GridSample", "state": "closed",
   "user": {"login": "alice"}, "labels": [{"name": "module: onnx"}, {"name": "triaged"}],
   "created_at": "2023-01-01T00:00:00Z", "updated_at": "2023-01-02T00:00:00Z",
   "closed_at": "2023-01-02T00:00:00Z", "comments": 0,
   "repository_url": "https://api.github.com/repos/pytorch/pytorch",
   "html_url": "https://github.com/pytorch/pytorch/issues/1", "body": "RuntimeError: boom"},
  {"id": 12, "number": 2, "title": "A pull request", "state": "closed",
   "user": {"login": "bob"}, "labels": [], "pull_request": {"url": "x"},
   "created_at": "2023-01-01T00:00:00Z", "updated_at": "2023-01-01T00:00:00Z",
   "repository_url": "https://api.github.com/repos/pytorch/pytorch", "body": null}
])";

}  // namespace

TEST_CASE("import: REST array, idempotent on re-import") {
  test::TempDir dir;
  auto db = open_database(dir.file("i.db"));
  std::string f = dir.write("rest.json", kRestArray);
  ImportCounts c = import_files(*db, {f});
  CHECK(c.inserted == 2);
  CHECK(c.pull_requests == 1);
  CHECK(db->scalar("SELECT count(*) FROM issues WHERE is_pull_request=1") == 1);
  CHECK(db->scalar("SELECT count(*) FROM issue_labels") == 2);
  std::string before = fingerprint(*db);
  ImportCounts again = import_files(*db, {f});
  CHECK(again.inserted == 0);
  CHECK(again.updated == 0);
  CHECK(again.unchanged == 2);
  CHECK(fingerprint(*db) == before);
}

TEST_CASE("import: flattened JSONL with comments, newer updated_at replaces, older is ignored") {
  test::TempDir dir;
  auto db = open_database(dir.file("i.db"));
  std::string v1 = dir.write(
      "v1.jsonl",
      R"({"repo":"onnx/tensorflow-onnx","number":5,"title":"old","state":"closed","labels":["bug"],"author":"a","updated_at":"2022-01-01T00:00:00Z","body":"b","comments":[{"author":"c","created_at":"2022-01-01","body":"first"}]})"
      "\n\n");
  std::string v2 = dir.write(
      "v2.jsonl",
      R"({"repo":"onnx/tensorflow-onnx","number":5,"title":"new","state":"closed","labels":["bug","fixed"],"author":"a","updated_at":"2022-02-01T00:00:00Z","body":"b","comments":[{"author":"c","body":"first"},{"author":"d","body":"second"}]})");
  import_files(*db, {v1});
  CHECK(db->scalar("SELECT count(*) FROM comments") == 1);
  ImportCounts c = import_files(*db, {v2});
  CHECK(c.updated == 1);
  CHECK(db->scalar("SELECT count(*) FROM comments") == 2);
  CHECK(db->scalar("SELECT count(*) FROM issue_labels") == 2);
  ImportCounts old = import_files(*db, {v1});
  CHECK(old.stale == 1);
  Stmt st(*db, "SELECT title FROM issues");
  REQUIRE(st.step());
  CHECK(st.text(0) == "new");
  CHECK(db->scalar("SELECT count(*) FROM comments") == 2);
}

// Issue #41: times were compared as text, so an issue stored with updated_at
// 2024-01-01T00:00:00+14:00 (2023-12-31T10:00:00Z) judged a copy of 2023-12-31T12:00:00Z, two
// hours newer, stale and dropped it. Times are stored as UTC instants and compared so.
TEST_CASE("import: times with offsets are stored in UTC and compared as instants") {
  test::TempDir dir;
  auto db = open_database(dir.file("i.db"));
  auto issue = [](const char* title, const char* updated) {
    return std::string(R"({"repo":"onnx/onnx","number":7,"title":")") + title +
           R"(","created_at":"2023-12-31T20:00:00-05:00","updated_at":")" + updated +
           R"(","comments":[{"author":"c","created_at":"2024-01-01T01:30:00+01:30","body":"x"}],)" +
           R"("timeline":[{"event":"closed","created_at":"2024-01-01","actor":{"login":"a"}}]})" +
           "\n";
  };
  import_files(*db, {dir.write("a.jsonl", issue("first", "2024-01-01T00:00:00+14:00"))});
  auto text = [&](const char* sql) {
    Stmt st(*db, sql);
    REQUIRE(st.step());
    return st.text(0);
  };
  CHECK(text("SELECT updated_at FROM issues") == "2023-12-31T10:00:00Z");
  CHECK(text("SELECT created_at FROM issues") == "2024-01-01T01:00:00Z");
  CHECK(text("SELECT created_at FROM comments") == "2024-01-01T00:00:00Z");
  CHECK(text("SELECT created_at FROM timeline_events") == "2024-01-01T00:00:00Z");
  // Two hours newer, written in UTC: stored, not judged stale.
  ImportCounts c =
      import_files(*db, {dir.write("b.jsonl", issue("second", "2023-12-31T12:00:00Z"))});
  CHECK(c.stale == 0);
  CHECK(c.updated == 1);
  CHECK(text("SELECT title FROM issues") == "second");
  CHECK(text("SELECT updated_at FROM issues") == "2023-12-31T12:00:00Z");
  // The same instant with another offset is unchanged; an earlier one is stale.
  CHECK(import_files(*db, {dir.write("c.jsonl", issue("third", "2024-01-01T02:00:00+14:00"))})
            .unchanged == 1);
  CHECK(import_files(*db, {dir.write("d.jsonl", issue("fourth", "2023-12-31T13:59:59+02:00"))})
            .stale == 1);
  CHECK(text("SELECT title FROM issues") == "second");
}

TEST_CASE("import: FTS index follows inserts and updates") {
  test::TempDir dir;
  auto db = open_database(dir.file("i.db"));
  import_files(
      *db,
      {dir.write(
          "a.jsonl",
          R"({"repo":"a/b","number":1,"title":"GridSample unsupported","updated_at":"2024-01-01T00:00:00Z","comments":[{"body":"INTERNAL ASSERT FAILED at graph.cpp"}]})")});
  CHECK(db->scalar("SELECT count(*) FROM issues_fts WHERE issues_fts MATCH 'gridsample'") == 1);
  CHECK(db->scalar(
            "SELECT count(*) FROM comments_fts WHERE comments_fts MATCH '\"INTERNAL ASSERT\"'") ==
        1);
  import_files(
      *db,
      {dir.write(
          "b.jsonl",
          R"({"repo":"a/b","number":1,"title":"Resize mismatch","updated_at":"2024-01-02T00:00:00Z","comments":[]})")});
  CHECK(db->scalar("SELECT count(*) FROM issues_fts WHERE issues_fts MATCH 'gridsample'") == 0);
  CHECK(db->scalar("SELECT count(*) FROM issues_fts WHERE issues_fts MATCH 'resize'") == 1);
  CHECK(db->scalar("SELECT count(*) FROM comments_fts WHERE comments_fts MATCH 'assert'") == 0);
}

TEST_CASE("import: malformed input names file:line and leaves the database unchanged") {
  test::TempDir dir;
  auto db = open_database(dir.file("i.db"));
  std::string good = dir.write("good.json", kRestArray);
  import_files(*db, {good});
  std::string before = fingerprint(*db);

  struct Case {
    const char* name;
    std::string text;
    std::string expect;
  };
  std::vector<Case> cases = {
      {"badjson.jsonl", "{\"repo\":\"a/b\",\"number\":1}\n{\"repo\": \"a/b\", \"number\": 2,,}\n",
       "badjson.jsonl:2: malformed JSON"},
      {"notobject.jsonl", "{\"repo\":\"a/b\",\"number\":3}\n[1,2]\n",
       "notobject.jsonl:2: expected a JSON object, got an array"},
      {"nonumber.jsonl", "{\"repo\":\"a/b\",\"number\":4}\n\n{\"repo\":\"a/b\",\"title\":\"x\"}\n",
       "nonumber.jsonl:3: number: missing"},
      {"norepo.jsonl", "{\"number\":4}\n", "norepo.jsonl:1: no repository"},
      {"badarray.json", "[\n {\"repo\":\"a/b\",\"number\":7},\n {\"repo\":\"a/b\"}\n]\n",
       "badarray.json:3: number: missing"},
      {"truncated.json", "[\n {\"repo\":\"a/b\",\"number\":7},\n {\"repo\":\"a/b\", \"number\": 8",
       "truncated.json:3: unterminated array"},
      {"badcomments.jsonl", "{\"repo\":\"a/b\",\"number\":9,\"comments\":[1]}\n",
       "badcomments.jsonl:1: comments[0]: expected an object, got an integer"},
      // Found by tests/fuzz (issue_schema): nlohmann's parser ends the text at a NUL byte, so an
      // object followed by NUL and anything was accepted (JSONL), and raw_json kept the hidden
      // bytes.
      {"nul.jsonl", std::string("{\"repo\":\"a/b\",\"number\":10}\0 hidden {{\n", 38),
       "nul.jsonl:1: malformed JSON: a NUL byte at offset 26"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    std::string path = dir.write(c.name, c.text);
    // A good file before the bad one must be rolled back too.
    CHECK_THROWS_WITH_AS(
        import_files(*db, {dir.write("ok.jsonl", "{\"repo\":\"z/z\",\"number\":1}"), path}),
        doctest::Contains(c.expect.c_str()), UserError);
    CHECK(fingerprint(*db) == before);
  }
}

TEST_CASE("split_json_array keeps strings with brackets and escaped quotes intact") {
  auto parts = split_json_array("[{\"a\":\"]\\\"}\"},\n\n {\"b\":[1,2]}]");
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].first == 1);
  CHECK(parts[0].second == "{\"a\":\"]\\\"}\"}");
  CHECK(parts[1].first == 3);
  CHECK(split_json_array("  [ ]").empty());
}

TEST_CASE("has_fix_link follows the study's four rules") {
  const std::string repo = "pytorch/pytorch";
  auto j = [](const char* s) { return Json::parse(s); };
  CHECK_FALSE(timeline_has_fix_link(repo, j("[]")));
  CHECK_FALSE(timeline_has_fix_link(repo, j(R"([{"event":"closed","commit_id":null}])")));
  CHECK(timeline_has_fix_link(repo, j(R"([{"event":"closed","commit_id":"abc"}])")));
  CHECK(timeline_has_fix_link(repo, j(R"([{"event":"referenced","commit_id":"abc"}])")));
  CHECK(timeline_has_fix_link(repo, j(R"([{"event":"connected"}])")));
  CHECK(timeline_has_fix_link(
      repo,
      j(R"([{"event":"cross-referenced","source":{"type":"issue","issue":{"number":9,"state":"closed","pull_request":{},"repository":{"full_name":"pytorch/pytorch"}}}}])")));
  // Open source issue, or another repository: no.
  CHECK_FALSE(timeline_has_fix_link(
      repo,
      j(R"([{"event":"cross-referenced","source":{"type":"issue","issue":{"number":9,"state":"open","repository":{"full_name":"pytorch/pytorch"}}}}])")));
  CHECK_FALSE(timeline_has_fix_link(
      repo,
      j(R"([{"event":"cross-referenced","source":{"type":"issue","issue":{"number":9,"state":"closed","repository":{"full_name":"other/repo"}}}}])")));
  CHECK_FALSE(timeline_has_fix_link(repo, j(R"([{"event":"labeled","label":{"name":"x"}}])")));
}

TEST_CASE("import: a pull_request object of nulls (pre-2014 dumps) is a plain issue") {
  test::TempDir dir;
  auto db = open_database(dir.file("i.db"));
  std::string f = dir.write("old.json", R"([
  {"id": 21, "number": 5, "title": "Old plain issue", "state": "closed", "user": {"login": "a"},
   "labels": [], "created_at": "2013-01-01T00:00:00Z", "updated_at": "2013-01-02T00:00:00Z",
   "pull_request": {"html_url": null, "diff_url": null, "patch_url": null},
   "repository_url": "https://api.github.com/repos/o/r", "body": "x"},
  {"id": 22, "number": 6, "title": "Old pull request", "state": "closed", "user": {"login": "b"},
   "labels": [], "created_at": "2013-01-01T00:00:00Z", "updated_at": "2013-01-02T00:00:00Z",
   "pull_request": {"html_url": "https://github.com/o/r/pull/6", "diff_url": null,
                    "patch_url": null},
   "repository_url": "https://api.github.com/repos/o/r", "body": "y"}
])");
  ImportCounts c = import_files(*db, {f});
  CHECK(c.inserted == 2);
  CHECK(c.pull_requests == 1);
  CHECK(db->scalar("SELECT is_pull_request FROM issues WHERE number=5") == 0);
  CHECK(db->scalar("SELECT is_pull_request FROM issues WHERE number=6") == 1);
}

TEST_CASE("is_pull_request and timeline actors follow the real shapes") {
  CHECK_FALSE(is_pull_request(Json::parse(R"({"number": 1})")));
  CHECK_FALSE(is_pull_request(Json::parse(R"({"pull_request": null})")));
  CHECK_FALSE(is_pull_request(
      Json::parse(R"({"pull_request": {"html_url": null, "diff_url": null, "patch_url": null}})")));
  CHECK(is_pull_request(Json::parse(R"({"pull_request": {"url": "u", "merged_at": null}})")));
  auto committed = timeline_actor_and_date(Json::parse(
      R"({"event": "committed", "sha": "abc", "author": {"name": "Ann", "email": "a@x",
          "date": "2020-01-01T00:00:00Z"}, "committer": {"name": "GitHub",
          "date": "2020-01-02T00:00:00Z"}})"));
  CHECK(committed.first == "Ann");
  CHECK(committed.second == "2020-01-01T00:00:00Z");
  auto reviewed = timeline_actor_and_date(Json::parse(
      R"({"event": "reviewed", "user": {"login": "rev"}, "submitted_at": "2020-02-01T00:00:00Z"})"));
  CHECK(reviewed.first == "rev");
  CHECK(reviewed.second == "2020-02-01T00:00:00Z");
  auto line = timeline_actor_and_date(Json::parse(
      R"({"event": "line-commented", "comments": [{"user": {"login": "lc"},
          "created_at": "2020-03-01T00:00:00Z"}]})"));
  CHECK(line.first == "lc");
  CHECK(line.second == "2020-03-01T00:00:00Z");
  auto plain = timeline_actor_and_date(Json::parse(
      R"({"event": "closed", "actor": {"login": "x"}, "created_at": "2020-04-01T00:00:00Z"})"));
  CHECK(plain.first == "x");
  CHECK(plain.second == "2020-04-01T00:00:00Z");
}
