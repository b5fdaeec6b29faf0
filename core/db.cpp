#include "core/db.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <thread>

#include "core/error.h"
#include "core/text.h"

namespace convfail {

void check_database_path(const std::string& path) {
  if (path.empty() || path == ":memory:" || starts_with(path, "file:")) return;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    throw UserError("database " + path + ": " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) throw UserError("database " + path + " is a directory");
  if (!S_ISREG(st.st_mode)) throw UserError("database " + path + " is not a regular file");
}

void Db::open(const std::string& name, int flags) {
  int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw UserError("cannot open database " + path_ + ": " + msg);
  }
  set_busy_timeout(busy_wait_);
  sqlite3_extended_result_codes(db_, 1);
}

Db::Db(const std::string& path, OpenMode mode) : path_(path) {
  check_database_path(path);
  if (mode == OpenMode::kReadOnly) {
    open(path, SQLITE_OPEN_READONLY);
    // A WAL database needs its -shm index, which a reader cannot create in a directory it may
    // not write. Without a -wal file every committed page is in the main file: read it immutable.
    int rc = sqlite3_exec(db_, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) {
      std::ifstream wal(path + "-wal");
      if ((sqlite3_errcode(db_) & 0xff) == SQLITE_CANTOPEN ||
          (sqlite3_errcode(db_) & 0xff) == SQLITE_READONLY) {
        if (!wal) {
          sqlite3_close(db_);
          db_ = nullptr;
          open("file:" + url_encode(path) + "?immutable=1", SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
        }
      }
    }
    try {
      exec("PRAGMA foreign_keys=ON");
      scalar("SELECT count(*) FROM sqlite_master");  // a file that is not a database fails here
    } catch (...) {
      sqlite3_close(db_);
      db_ = nullptr;
      throw;
    }
    return;
  }
  open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  try {
    // A file that is not a database fails here, on the first read.
    // 16 KiB pages for new files (no effect on existing ones): issues with their raw JSON are
    // 1-3 KiB, and bulk import writes ~25% less CPU and I/O than with 4 KiB pages.
    exec("PRAGMA page_size=16384");
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA foreign_keys=ON");
    exec("PRAGMA synchronous=NORMAL");
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

Db::~Db() {
  sqlite3_close_v2(db_);
}

void Db::fail(const std::string& context) const {
  if ((sqlite3_errcode(db_) & 0xff) == SQLITE_INTERRUPT && time_limit_.count() > 0 &&
      std::chrono::steady_clock::now() >= deadline_)
    throw UserError("database " + path_ + ": " + context + ": took longer than " +
                    std::to_string(time_limit_.count() / 1000.0).substr(0, 5) +
                    " s (stopped; a view, a trigger or a huge value?)");
  std::string message = "database " + path_ + ": " + context + ": " + sqlite3_errmsg(db_);
  if ((sqlite3_errcode(db_) & 0xff) == SQLITE_BUSY) throw DbBusy(message);
  throw UserError(message);
}

void Db::set_busy_timeout(std::chrono::milliseconds wait) {
  busy_wait_ = wait;
  sqlite3_busy_handler(db_, &Db::on_busy, this);
}

void Db::set_time_limit(std::chrono::milliseconds limit) {
  time_limit_ = limit;
  deadline_ = std::chrono::steady_clock::now() + limit;
  if (limit.count() > 0)
    sqlite3_progress_handler(db_, 1000, &Db::on_progress, this);
  else
    sqlite3_progress_handler(db_, 0, nullptr, nullptr);
}

int Db::on_progress(void* self) {
  auto* db = static_cast<Db*>(self);
  return std::chrono::steady_clock::now() >= db->deadline_ ? 1 : 0;  // non-zero: interrupt
}

int Db::on_busy(void* self, int tries) {
  auto* db = static_cast<Db*>(self);
  auto now = std::chrono::steady_clock::now();
  if (tries == 0) db->busy_since_ = now;
  if (now - db->busy_since_ >= db->busy_wait_) return 0;  // give up: SQLITE_BUSY
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return 1;
}

void Db::exec(std::string_view sql) {
  std::string s(sql);
  char* err = nullptr;
  if (int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err); rc != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    if ((rc & 0xff) == SQLITE_BUSY) throw DbBusy("database " + path_ + ": " + msg);
    throw UserError("database " + path_ + ": " + msg);
  }
}

std::string Db::read_prefix(const char* table, const char* column, std::int64_t rowid,
                            std::size_t max_bytes, std::size_t* size) {
  sqlite3_blob* blob = nullptr;
  if (sqlite3_blob_open(db_, "main", table, column, rowid, 0, &blob) != SQLITE_OK) {
    sqlite3_blob_close(blob);
    fail(std::string("reading ") + table + "." + column);
  }
  auto total = static_cast<std::size_t>(sqlite3_blob_bytes(blob));
  std::string out(std::min(total, max_bytes), '\0');
  int rc = out.empty() ? SQLITE_OK
                       : sqlite3_blob_read(blob, out.data(), static_cast<int>(out.size()), 0);
  sqlite3_blob_close(blob);
  if (rc != SQLITE_OK) fail(std::string("reading ") + table + "." + column);
  *size = total;
  return out;
}

std::int64_t Db::last_insert_id() const {
  return sqlite3_last_insert_rowid(db_);
}
int Db::changes() const {
  return sqlite3_changes(db_);
}

std::int64_t Db::scalar(std::string_view sql) {
  Stmt st(*this, sql);
  return st.step() ? st.int64(0) : 0;
}

int Db::user_version() {
  return static_cast<int>(scalar("PRAGMA user_version"));
}

void Db::set_user_version(int version) {
  exec("PRAGMA user_version=" + std::to_string(version));
}

Stmt::Stmt(Db& db, std::string_view sql) : db_(&db) {
  if (sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) !=
      SQLITE_OK) {
    db.fail("prepare");
  }
}

Stmt::Stmt(Stmt&& other) noexcept : db_(other.db_), stmt_(other.stmt_) {
  other.stmt_ = nullptr;
}

Stmt::~Stmt() {
  sqlite3_finalize(stmt_);
}

Stmt& Stmt::bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_->fail("bind");
  return *this;
}

Stmt& Stmt::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) db_->fail("bind");
  return *this;
}

Stmt& Stmt::bind(int index, std::string_view value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK) {
    db_->fail("bind");
  }
  return *this;
}

Stmt& Stmt::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) db_->fail("bind");
  return *this;
}

Stmt& Stmt::bind(int index, const std::optional<std::string>& value) {
  return value ? bind(index, std::string_view(*value)) : bind_null(index);
}

Stmt& Stmt::bind(int index, const std::optional<std::int64_t>& value) {
  return value ? bind(index, *value) : bind_null(index);
}

bool Stmt::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail("step");
}

void Stmt::run() {
  while (step()) {
  }
  reset();
}

void Stmt::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Stmt::is_null(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}
Stmt::Type Stmt::type(int col) const {
  switch (sqlite3_column_type(stmt_, col)) {
    case SQLITE_INTEGER:
      return Type::kInteger;
    case SQLITE_FLOAT:
      return Type::kReal;
    case SQLITE_TEXT:
      return Type::kText;
    case SQLITE_BLOB:
      return Type::kBlob;
    default:
      return Type::kNull;
  }
}
std::int64_t Stmt::int64(int col) const {
  return sqlite3_column_int64(stmt_, col);
}
double Stmt::real(int col) const {
  return sqlite3_column_double(stmt_, col);
}

std::string Stmt::text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  if (!p) return {};
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)));
}

std::optional<std::string> Stmt::opt_text(int col) const {
  if (is_null(col)) return std::nullopt;
  return text(col);
}

std::optional<std::int64_t> Stmt::opt_int64(int col) const {
  if (is_null(col)) return std::nullopt;
  return int64(col);
}

int Stmt::column_count() const {
  return sqlite3_column_count(stmt_);
}
std::string Stmt::column_name(int col) const {
  return sqlite3_column_name(stmt_, col);
}

Transaction::Transaction(Db& db) : db_(db) {
  db_.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace convfail
