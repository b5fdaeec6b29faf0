#include "cli/context.h"

#include <unistd.h>

#include "core/migrations.h"

namespace convfail::cli {

Db& Context::db() {
  if (!db_) {
    db_ = open_database(db_path, IfMissing::kRefuse);
    db_->set_busy_timeout(lock_wait());
  }
  return *db_;
}

Db& Context::create_db() {
  if (!db_) {
    db_ = open_database(db_path, IfMissing::kCreate);
    db_->set_busy_timeout(lock_wait());
  }
  return *db_;
}

std::chrono::milliseconds Context::lock_wait() const {
  return std::chrono::milliseconds(static_cast<long long>(lock_wait_s * 1000));
}

Db& Context::read_db() {
  if (!db_) db_ = open_database_read_only(db_path);
  return *db_;
}

bool Context::stdout_is_tty() {
  return isatty(STDOUT_FILENO) == 1;
}
bool Context::stderr_is_tty() {
  return isatty(STDERR_FILENO) == 1;
}

}  // namespace convfail::cli
