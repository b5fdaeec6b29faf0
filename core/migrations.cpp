#include "core/migrations.h"

#include <sys/stat.h>
#include <algorithm>

#include <cstdlib>
#include <fstream>
#include <map>

#include "core/embedded_files.h"
#include "core/error.h"
#include "core/text.h"

namespace convfail {

extern const EmbeddedFile kMigrations[];
extern const std::size_t kMigrations_count;

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> all = [] {
    std::vector<Migration> out;
    for (std::size_t i = 0; i < kMigrations_count; ++i) {
      std::string name = kMigrations[i].name;
      int version = std::atoi(name.c_str());
      if (version <= 0) continue;  // not a numbered migration
      out.push_back({version, name, kMigrations[i].text});
    }
    std::sort(out.begin(), out.end(),
              [](const Migration& a, const Migration& b) { return a.version < b.version; });
    return out;
  }();
  return all;
}

int schema_version() {
  return migrations().empty() ? 0 : migrations().back().version;
}

namespace {

void check_not_newer(Db& db, int current) {
  if (current > schema_version()) {
    throw UserError("database " + db.path() + " has schema version " + std::to_string(current) +
                    ", newer than this convfail (" + std::to_string(schema_version()) +
                    "); upgrade convfail to open it");
  }
}

}  // namespace

int migrate(Db& db) {
  int current = db.user_version();
  check_not_newer(db, current);
  if (current == schema_version()) return 0;
  Transaction tx(db);
  // Re-read under the write lock: another process may have migrated meanwhile.
  current = db.user_version();
  int applied = 0;
  for (const Migration& m : migrations()) {
    if (m.version <= current) continue;
    try {
      db.exec(m.sql);
    } catch (const UserError& e) {
      throw UserError("migration " + m.name + " failed: " + e.what());
    }
    ++applied;
  }
  db.set_user_version(schema_version());
  tx.commit();
  return applied;
}

namespace {

[[noreturn]] void no_database(const std::string& path, bool exists) {
  throw UserError("database " + path +
                  (exists ? " cannot be read (permission denied?)" : " does not exist") +
                  ": create it with `convfail init` (or import or crawl into it), or pass "
                  "--db PATH");
}

}  // namespace

std::unique_ptr<Db> open_database(const std::string& path, IfMissing if_missing) {
  check_database_path(path);
  struct stat st {};
  if (if_missing == IfMissing::kRefuse && path != ":memory:" && ::stat(path.c_str(), &st) != 0)
    no_database(path, false);
  auto db = std::make_unique<Db>(path);
  migrate(*db);
  return db;
}

std::unique_ptr<Db> open_database_read_only(const std::string& path) {
  check_database_path(path);  // before opening: a FIFO would block the open
  if (!std::ifstream(path)) {
    struct stat st {};
    no_database(path, ::stat(path.c_str(), &st) == 0);
  }
  auto db = std::make_unique<Db>(path, OpenMode::kReadOnly);
  int current = db->user_version();
  check_not_newer(*db, current);
  if (current < schema_version()) {
    throw UserError("database " + path + " has schema version " + std::to_string(current) +
                    ", this convfail needs " + std::to_string(schema_version()) +
                    ": run `convfail init` to migrate it (commands that only read never change "
                    "the database)");
  }
  return db;
}

namespace {

// type + " " + name -> sql of every view and trigger in the database.
std::map<std::string, std::string> views_and_triggers(Db& db) {
  std::map<std::string, std::string> out;
  auto st = db.prepare(
      "SELECT type, name, sql FROM sqlite_master WHERE type IN ('view', 'trigger') LIMIT 10000");
  while (st.step()) out[st.text(0) + " " + st.text(1)] = st.text(2);
  return out;
}

}  // namespace

void check_schema_views_and_triggers(Db& db) {
  static const std::map<std::string, std::string> expected = [] {
    Db fresh(":memory:");
    migrate(fresh);
    return views_and_triggers(fresh);
  }();
  for (const auto& [what, sql] : views_and_triggers(db)) {
    auto it = expected.find(what);
    if (it == expected.end() || it->second != sql)
      throw UserError("database " + db.path() + " holds " + terminal_safe(truncate_utf8(what, 80)) +
                      ", which convfail's schema does not make (refused: a view or trigger runs "
                      "its own SQL when the database is read)");
  }
}

}  // namespace convfail
