#include <doctest/doctest.h>

#include "core/importer.h"
#include "core/issue_store.h"
#include "core/migrations.h"
#include "test_helpers.h"

using namespace convfail;

namespace {

// Everything the store wrote, in id order (stored_at excluded: it is a clock reading).
std::string contents(Db& db) {
  std::string out;
  for (const char* q :
       {"SELECT group_concat(id||'|'||number||'|'||title||'|'||coalesce(state,'')||'|'||"
        "has_fix_link||'|'||coalesce(comment_count,'')||'|'||raw_json, '\n') FROM "
        "(SELECT * FROM issues ORDER BY id)",
        "SELECT group_concat(issue_id||':'||name, ',') FROM (SELECT * FROM issue_labels ORDER BY "
        "1,2)",
        "SELECT group_concat(id||':'||issue_id||':'||position||':'||body, ',') FROM "
        "(SELECT * FROM comments ORDER BY id)",
        "SELECT group_concat(issue_id||':'||position||':'||event, ',') FROM "
        "(SELECT * FROM timeline_events ORDER BY id)",
        "SELECT group_concat(rowid, ',') FROM issues_fts WHERE issues_fts MATCH 'gather'",
        "SELECT group_concat(rowid, ',') FROM comments_fts WHERE comments_fts MATCH 'gather'"}) {
    Stmt st(db, q);
    st.step();
    out += st.text(0) + "\n";
  }
  return out;
}

void store_all(IssueStore& store, const Json& issues) {
  for (const Json& o : issues) {
    std::int64_t id = 0;
    UpsertResult r = store.upsert_issue("onnx/tensorflow-onnx", o, &id);
    if (r == UpsertResult::kStale) continue;
    if (o.contains("comments")) store.store_comments(id, o["comments"]);
    if (o.contains("timeline")) store.store_timeline(id, "onnx/tensorflow-onnx", o["timeline"]);
  }
}

}  // namespace

TEST_CASE("issue store: bulk mode stores exactly what row-by-row mode stores") {
  // Five issues, one of them twice in a row (the newer copy second) and one stale copy, with
  // comments, labels and a fix-linking timeline: a batch of 2 forces flushes in the middle.
  Json issues = Json::parse(R"J([
    {"number":1,"title":"Gather fails","labels":["bug"],"updated_at":"2022-01-01","body":"gather op",
     "comments":[{"author":"a","body":"gather again"}]},
    {"number":1,"title":"Gather fails (edited)","labels":["bug","triaged"],"updated_at":"2022-02-01",
     "body":"gather op","comments":[{"author":"a","body":"gather again"},{"author":"b","body":"ok"}]},
    {"number":2,"title":"Slow","labels":["perf","bug"],"updated_at":"2022-01-01","body":"x",
     "timeline":[{"event":"closed","commit_id":"abc"}]},
    {"number":3,"title":"Hang","updated_at":"2022-01-01","body":"y","comments":[]},
    {"number":1,"title":"stale copy","updated_at":"2021-01-01","body":"old"},
    {"number":4,"title":"Gather twice","updated_at":"2022-01-01","body":"gather gather",
     "timeline":[{"event":"labeled"}]},
    {"number":5,"title":"Other","updated_at":"2022-01-01","body":"z"}
  ])J");
  test::TempDir dir;
  auto plain = open_database(dir.file("plain.db"));
  auto bulk = open_database(dir.file("bulk.db"));
  {
    Transaction tx(*plain);
    IssueStore store(*plain);
    store_all(store, issues);
    tx.commit();
  }
  {
    Transaction tx(*bulk);
    IssueStore store(*bulk);
    store.begin_bulk(2);
    store_all(store, issues);
    store.flush();
    CHECK(store.pending() == 0);
    tx.commit();
  }
  std::string expected = contents(*plain);
  CHECK(expected.find("Gather fails (edited)") != std::string::npos);
  CHECK(plain->scalar("SELECT has_fix_link FROM issues WHERE number=2") == 1);
  CHECK(contents(*bulk) == expected);
}

TEST_CASE("import: a failed bulk import leaves nothing staged or stored") {
  test::TempDir dir;
  auto db = open_database(dir.file("f.db"));
  std::string good =
      dir.write("good.jsonl", R"({"repo":"a/b","number":1,"title":"t","body":"gather"})"
                              "\n");
  std::string bad = dir.write("bad.jsonl", R"({"repo":"a/b","number":2,"title":"t"})"
                                           "\n{\"repo\":\"a/b\"}\n");
  CHECK_THROWS(import_files(*db, {good, bad}));
  CHECK(db->scalar("SELECT count(*) FROM issues") == 0);
  CHECK(db->scalar("SELECT count(*) FROM issues_fts WHERE issues_fts MATCH 'gather'") == 0);
  ImportCounts c = import_files(*db, {good});
  CHECK(c.inserted == 1);
  CHECK(db->scalar("SELECT count(*) FROM issues_fts WHERE issues_fts MATCH 'gather'") == 1);
}

TEST_CASE("import: the records checked are the records written, parsed once") {
  // The second file changes after the check (here: while the first file's issues are written).
  // The write pass writes what the check pass read: it used to read and parse every file again,
  // so it stopped half-way on the changed file, after writing the first.
  test::TempDir dir;
  auto db = open_database(dir.file("once.db"));
  std::string a = dir.write("a.jsonl", R"({"repo":"a/b","number":1,"title":"first"})"
                                       "\n");
  std::string b = dir.write("b.jsonl", R"({"repo":"a/b","number":2,"title":"checked"})"
                                       "\n");
  ImportOptions options;
  options.progress = [&](const std::string& path, std::int64_t) {
    if (path == a) dir.write("b.jsonl", "{\"repo\":\"a/b\",\"number\":2,\"title\":\"changed\"\n");
  };
  ImportCounts c = import_files(*db, {a, b}, options);
  CHECK(c.inserted == 2);
  CHECK(db->scalar("SELECT count(*) FROM issues WHERE title='checked'") == 1);
}

TEST_CASE("import: objects past the kept bytes are parsed again and written the same") {
  // A JSON array with several objects on one line (the write pass resumes at an element, not a
  // line), comments and a timeline: every bound, from nothing kept to everything, stores the same.
  std::string text = "[";
  for (int i = 1; i <= 12; ++i) {
    if (i > 1) text += i % 3 == 0 ? ",\n" : ", ";
    text += R"({"repo":"a/b","number":)" + std::to_string(i) + R"(,"title":"gather )" +
            std::to_string(i) + R"(","labels":["bug"],)" +
            R"("comments":[{"author":"u","body":"gather"}],"timeline":[{"event":"connected"}]})";
  }
  text += "]";
  test::TempDir dir;
  std::string f = dir.write("many.json", text);
  auto all = open_database(dir.file("all.db"));
  ImportCounts expected = import_files(*all, {f});
  CHECK(expected.inserted == 12);
  for (std::size_t kept :
       {std::size_t{1}, std::size_t{3000}, std::size_t{9000}, std::size_t{20000}}) {
    CAPTURE(kept);
    auto db = open_database(dir.file("kept" + std::to_string(kept) + ".db"));
    ImportOptions options;
    options.kept_bytes = kept;
    ImportCounts c = import_files(*db, {f}, options);
    CHECK(c.inserted == 12);
    CHECK(c.unchanged == 0);
    CHECK(c.comment_sets_changed == expected.comment_sets_changed);
    CHECK(c.timelines_changed == expected.timelines_changed);
    CHECK(contents(*db) == contents(*all));
  }
}
