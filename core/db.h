// A thin RAII layer over the SQLite C API: a connection, prepared statements, transactions.
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"

namespace convfail {

class Db;

// The database stayed locked by another writer for the whole busy timeout (SQLITE_BUSY): the
// caller may retry later (`serve` answers 503 with Retry-After).
class DbBusy : public UserError {
 public:
  explicit DbBusy(const std::string& what) : UserError(what) {}
};

// A prepared statement. Bind parameters by 1-based index, step(), read columns by 0-based index.
class Stmt {
 public:
  Stmt(Db& db, std::string_view sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt(Stmt&& other) noexcept;

  Stmt& bind(int index, std::int64_t value);
  Stmt& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Stmt& bind(int index, double value);
  Stmt& bind(int index, std::string_view value);
  Stmt& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Stmt& bind(int index, const std::string& value) { return bind(index, std::string_view(value)); }
  Stmt& bind_null(int index);
  // Binds the value, or NULL when it is empty.
  Stmt& bind(int index, const std::optional<std::string>& value);
  Stmt& bind(int index, const std::optional<std::int64_t>& value);

  // Returns true while a row is available; false when done. Throws on error.
  bool step();
  // Runs a statement that returns no rows (step until done), then resets it for reuse.
  void run();
  void reset();

  bool is_null(int col) const;
  // The storage class of the column's value in this row (SQLite's typeof(): a column declared
  // INTEGER may hold a REAL or a TEXT in a file someone else wrote).
  enum class Type { kInteger, kReal, kText, kBlob, kNull };
  Type type(int col) const;
  std::int64_t int64(int col) const;
  double real(int col) const;
  std::string text(int col) const;  // "" for NULL
  std::optional<std::string> opt_text(int col) const;
  std::optional<std::int64_t> opt_int64(int col) const;
  int column_count() const;
  std::string column_name(int col) const;

  sqlite3_stmt* handle() { return stmt_; }

 private:
  Db* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

enum class OpenMode {
  kReadWrite,  // created when missing; WAL
  // SQLITE_OPEN_READONLY: nothing is written, not even the WAL index when the directory is not
  // writable (then the file is opened immutable, which is safe when no -wal file exists).
  kReadOnly,
};

// Refuses a database path that names something other than a regular file (a FIFO would hang the
// open, a directory gives "disk I/O error"): UserError "database P is a directory" / "is not a
// regular file". A missing path passes (whether it may be created is the caller's rule);
// ":memory:" and "file:" URIs are not checked.
void check_database_path(const std::string& path);

// A database connection with WAL, foreign keys and a busy timeout. Does not migrate by itself:
// see migrations.h.
class Db {
 public:
  explicit Db(const std::string& path, OpenMode mode = OpenMode::kReadWrite);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  void exec(std::string_view sql);
  Stmt prepare(std::string_view sql) { return Stmt(*this, sql); }
  std::int64_t last_insert_id() const;
  int changes() const;
  // Runs a query expected to return one integer (0 when no row).
  std::int64_t scalar(std::string_view sql);

  int user_version();
  void set_user_version(int version);

  // How long a write waits for another writer's lock before DbBusy (default 10 s). The wait
  // polls every millisecond (SQLite's own handler sleeps up to 100 ms between tries, and
  // would miss the short gaps a batch job leaves between its transactions).
  void set_busy_timeout(std::chrono::milliseconds wait);

  // A bound on the time every statement from now on may take together (a database someone else
  // wrote may hold a view or a value that keeps a query busy forever): past it, SQLite is
  // interrupted (checked every few thousand virtual machine steps) and the statement throws
  // UserError "database P: ... took longer than N s". Zero: no bound (the default).
  void set_time_limit(std::chrono::milliseconds limit);

  // The first `max_bytes` of the TEXT or BLOB in `column` of row `rowid` of main.`table`, and
  // in *size its full size in bytes, read by incremental blob I/O: the rest of a 200 MB value
  // is never loaded (a SELECT of it, even through substr(), loads all of it).
  std::string read_prefix(const char* table, const char* column, std::int64_t rowid,
                          std::size_t max_bytes, std::size_t* size);

  const std::string& path() const { return path_; }
  sqlite3* handle() { return db_; }
  [[noreturn]] void fail(const std::string& context) const;

 private:
  void open(const std::string& name, int flags);

  static int on_busy(void* self, int tries);
  static int on_progress(void* self);

  std::string path_;
  sqlite3* db_ = nullptr;
  std::chrono::milliseconds busy_wait_{10000};
  std::chrono::steady_clock::time_point busy_since_;
  std::chrono::milliseconds time_limit_{0};
  std::chrono::steady_clock::time_point deadline_;
};

// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless commit() was called.
class Transaction {
 public:
  explicit Transaction(Db& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Db& db_;
  bool done_ = false;
};

}  // namespace convfail
