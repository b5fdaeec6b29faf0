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

// Opens a database and migrates it: what every command does.
std::unique_ptr<Db> open_database(const std::string& path);

}  // namespace convfail
