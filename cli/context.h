// What every subcommand shares: global options and the lazily opened database.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "core/db.h"

namespace convfail::cli {

class Context {
 public:
  // --db PATH, else $CONVFAIL_DB, else ./convfail.db
  std::string db_path;
  // --data-dir, else $CONVFAIL_DATA_DIR, else share/convfail/data beside the executable.
  std::string data_dir;
  // --lock-wait: how long a write waits for another process's write lock (a batch job's short
  // transaction, a label post) before failing.
  double lock_wait_s = 600;

  // Opens and migrates the database on first use: for commands that write. The file must
  // exist (a mistyped --db is an error, not a new empty database)...
  Db& db();
  // ... except for the commands that fill a database (import, crawl, labels import, test run,
  // reproduce --model): they create it.
  Db& create_db();
  std::chrono::milliseconds lock_wait() const;
  // For commands that only read: opens the database read-only (never creating or migrating it;
  // an old schema is an error telling the user to run `convfail init`), unless db() already
  // opened it.
  Db& read_db();
  // True when stdout is a terminal (colours, progress lines).
  static bool stdout_is_tty();
  static bool stderr_is_tty();

 private:
  std::unique_ptr<Db> db_;
};

}  // namespace convfail::cli
