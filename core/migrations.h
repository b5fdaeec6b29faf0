// Schema migrations: the numbered schema/NNNN_name.sql files, embedded at build time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/db.h"

namespace convfail {

struct Migration {
  int version;       // NNNN of the file name
  std::string name;  // file name
  std::string sql;
};

// All embedded migrations in version order.
const std::vector<Migration>& migrations();
// The schema version this binary writes (the highest migration).
int schema_version();

// Applies every migration newer than PRAGMA user_version, all in one transaction, and sets
// user_version. Throws UserError for a database newer than this binary (nothing is changed).
// Returns the number of migrations applied.
int migrate(Db& db);

// Opens a database and migrates it: what every command that writes does. Only the commands
// that fill a database (init, import, crawl) create a missing file (kCreate); the others
// (kRefuse) say it does not exist, so a mistyped --db never leaves an empty database behind.
enum class IfMissing { kCreate, kRefuse };
std::unique_ptr<Db> open_database(const std::string& path,
                                  IfMissing if_missing = IfMissing::kCreate);

// Opens a database read-only for a command that only reads: never creates, migrates or writes.
// UserError with one line naming the fix when the file is missing, when its schema is older than
// this binary ("run `convfail init`") or newer.
std::unique_ptr<Db> open_database_read_only(const std::string& path);

// For a database someone else wrote (a shard to merge): UserError naming the first view or
// trigger that the migrations do not make, or make with other SQL (a view in place of a table
// runs whatever query it holds whenever the table is read). The database is only read.
void check_schema_views_and_triggers(Db& db);

}  // namespace convfail
