#include <doctest/doctest.h>

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
