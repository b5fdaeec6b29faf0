// What every subcommand shares: global options and the lazily opened database.
#pragma once

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

  // Opens and migrates the database on first use: for commands that write.
  Db& db();
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
