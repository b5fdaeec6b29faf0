#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include "core/db.h"
#include "core/error.h"
#include "core/migrations.h"
#include "test_helpers.h"

using namespace convfail;

TEST_CASE("migrations: an empty database is migrated to the latest version") {
  test::TempDir dir;
  Db db(dir.file("a.db"));
  CHECK(db.user_version() == 0);
  int applied = migrate(db);
  CHECK(applied == static_cast<int>(migrations().size()));
  CHECK(db.user_version() == schema_version());
  CHECK(db.scalar("SELECT count(*) FROM sqlite_master WHERE name='issues'") == 1);
  CHECK(db.scalar("SELECT count(*) FROM sqlite_master WHERE name='issues_fts'") == 1);
  CHECK(migrate(db) == 0);  // idempotent
  CHECK(db.scalar("PRAGMA foreign_keys") == 1);
  CHECK(db.scalar("SELECT count(*) FROM pragma_journal_mode WHERE journal_mode='wal'") == 1);
}

TEST_CASE("migrations: versions are numbered, unique and ascending") {
  const auto& all = migrations();
  REQUIRE(!all.empty());
  CHECK(all.front().version == 1);
  for (std::size_t i = 1; i < all.size(); ++i) CHECK(all[i].version > all[i - 1].version);
}

TEST_CASE("migrations: an older database is migrated forward, keeping its rows") {
  test::TempDir dir;
  {
    Db db(dir.file("old.db"));
    // Apply only the first migration, as an older convfail would have.
    Transaction tx(db);
    db.exec(migrations().front().sql);
    db.set_user_version(migrations().front().version);
    tx.commit();
    db.exec("INSERT INTO repositories(full_name) VALUES ('a/b')");
  }
  Db db(dir.file("old.db"));
  migrate(db);
  CHECK(db.user_version() == schema_version());
  CHECK(db.scalar("SELECT count(*) FROM repositories") == 1);
}

TEST_CASE("migrations: a database newer than the binary is refused and left alone") {
  test::TempDir dir;
  {
    Db db(dir.file("new.db"));
    db.set_user_version(schema_version() + 5);
  }
  Db db(dir.file("new.db"));
  CHECK_THROWS_WITH_AS(migrate(db), doctest::Contains("newer than this convfail"), UserError);
  CHECK(db.user_version() == schema_version() + 5);
  CHECK(db.scalar("SELECT count(*) FROM sqlite_master") == 0);
}

TEST_CASE("db: a file that is not a database gives a clear error") {
  test::TempDir dir;
  std::string path = dir.write("junk.db", std::string(4096, 'x'));
  CHECK_THROWS_AS(open_database(path), UserError);
}

TEST_CASE("transaction: rolled back unless committed") {
  test::TempDir dir;
  auto db = open_database(dir.file("t.db"));
  {
    Transaction tx(*db);
    db->exec("INSERT INTO repositories(full_name) VALUES ('x/y')");
  }
  CHECK(db->scalar("SELECT count(*) FROM repositories") == 0);
}

TEST_CASE("manual labels are append-only") {
  test::TempDir dir;
  auto db = open_database(dir.file("m.db"));
  db->exec("INSERT INTO repositories(full_name) VALUES ('a/b')");
  db->exec("INSERT INTO issues(repo_id, number, title) VALUES (1, 1, 't')");
  db->exec(
      "INSERT INTO manual_labels(issue_id, annotator, dimension, value) VALUES "
      "(1,'x','symptom','crash')");
  CHECK_THROWS_AS(db->exec("UPDATE manual_labels SET value='hang'"), UserError);
  CHECK_THROWS_AS(db->exec("DELETE FROM manual_labels"), UserError);
  CHECK(db->scalar("SELECT count(*) FROM manual_labels WHERE value='crash'") == 1);
}

TEST_CASE("db: a write waits for another writer's lock, then fails with DbBusy") {
  test::TempDir dir;
  auto a = open_database(dir.file("l.db"));
  auto b = open_database(dir.file("l.db"));
  b->set_busy_timeout(std::chrono::milliseconds(200));
  a->exec("BEGIN IMMEDIATE");
  auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(b->exec("BEGIN IMMEDIATE"), DbBusy);
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(190));
  a->exec("COMMIT");
  // A lock released while waiting is taken at once (the wait polls every millisecond).
  b->set_busy_timeout(std::chrono::milliseconds(5000));
  a->exec("BEGIN IMMEDIATE");
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    a->exec("COMMIT");
  });
  start = std::chrono::steady_clock::now();
  b->exec("BEGIN IMMEDIATE");
  auto waited = std::chrono::steady_clock::now() - start;
  release.join();
  b->exec("COMMIT");
  CHECK(waited < std::chrono::milliseconds(1000));
}

TEST_CASE("db: only a regular file (or a missing one) is a database path") {
  test::TempDir dir;
  CHECK_THROWS_WITH_AS(open_database(dir.file("no.db"), IfMissing::kRefuse),
                       doctest::Contains("does not exist"), UserError);
  CHECK_FALSE(std::ifstream(dir.file("no.db")));
  CHECK_THROWS_WITH_AS(Db(dir.path().string()), doctest::Contains("is a directory"), UserError);
  CHECK_THROWS_WITH_AS(open_database(dir.path().string()), doctest::Contains("is a directory"),
                       UserError);
  CHECK_THROWS_WITH_AS(open_database_read_only("/dev/null"),
                       doctest::Contains("is not a regular file"), UserError);
  CHECK(open_database(dir.file("yes.db"), IfMissing::kCreate) != nullptr);
}

TEST_CASE("db: a time limit stops a query that would run forever, with one line naming the file") {
  test::TempDir dir;
  Db db(dir.file("slow.db"));
  db.exec("CREATE TABLE t (x INTEGER)");
  db.exec(
      "CREATE VIEW forever AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
      "SELECT x FROM c");
  db.set_time_limit(std::chrono::milliseconds(300));
  auto t0 = std::chrono::steady_clock::now();
  try {
    db.scalar("SELECT count(*) FROM forever");
    FAIL("a view that never ends was read to its end");
  } catch (const UserError& e) {
    std::string what = e.what();
    CHECK(what.find("took longer than 0.300 s") != std::string::npos);
    CHECK(what.find(dir.file("slow.db")) != std::string::npos);
    CHECK(what.find('\n') == std::string::npos);
  }
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30));
  db.set_time_limit(std::chrono::milliseconds(0));  // no bound again
  CHECK(db.scalar("SELECT count(*) FROM t") == 0);
}

TEST_CASE("db: a column's storage class is read as SQLite's typeof() says it") {
  test::TempDir dir;
  Db db(dir.file("types.db"));
  db.exec("CREATE TABLE t (seq INTEGER)");
  db.exec("INSERT INTO t VALUES (4), (2.5), ('x'), (NULL), (x'00')");
  auto st = db.prepare("SELECT seq FROM t ORDER BY rowid");
  std::vector<Stmt::Type> got;
  while (st.step()) got.push_back(st.type(0));
  CHECK(got == std::vector<Stmt::Type>{Stmt::Type::kInteger, Stmt::Type::kReal, Stmt::Type::kText,
                                       Stmt::Type::kNull, Stmt::Type::kBlob});
}

TEST_CASE("migrations: a view or trigger the schema does not make is named and refused") {
  test::TempDir dir;
  Db db(dir.file("s.db"));
  migrate(db);
  check_schema_views_and_triggers(db);  // the schema's own triggers pass
  db.exec("CREATE VIEW stranger AS SELECT 1");
  CHECK_THROWS_WITH_AS(check_schema_views_and_triggers(db), doctest::Contains("view stranger"),
                       UserError);
  db.exec("DROP VIEW stranger");
  // One of the schema's triggers with other SQL.
  auto st = db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' LIMIT 1");
  REQUIRE(st.step());
  std::string trigger = st.text(0);
  st.reset();
  db.exec("DROP TRIGGER " + trigger);
  db.exec("CREATE TRIGGER " + trigger + " AFTER INSERT ON issues BEGIN SELECT 1; END");
  CHECK_THROWS_WITH_AS(check_schema_views_and_triggers(db),
                       doctest::Contains(("trigger " + trigger).c_str()), UserError);
}
