// The one writer of a database in a process (as Datasette's `Database` owns its write queue):
// callers on any thread submit a write, a function taking Db&, and wait for its result or its
// exception; one writer thread, owning one connection, runs the writes. The contract:
//
// - Group commit. Writes that arrive together are committed together: the writer takes every
//   write queued by then, opens one BEGIN IMMEDIATE transaction, runs each write inside its own
//   savepoint, in the order submitted, and commits once. N concurrent writes cost one commit, and
//   no caller waits for another caller's transaction to begin and end.
// - A write that throws has its savepoint rolled back (nothing of it is written) and submit()
//   rethrows its exception unchanged; the other writes of its batch are committed.
// - A batch that fails as a whole (BEGIN IMMEDIATE found the database locked by another process
//   past `lock_wait`, a savepoint or COMMIT failed, the connection could not be opened) writes
//   nothing: every submit() of it throws WriteNotStored, whose cause() is that failure (DbBusy
//   for the lock wait, which `serve` answers 503 with Retry-After). The next batch tries again.
// - Bounded. At most `max_queued` writes wait for the writer (one more: WriteQueueBusy at once),
//   and a write the writer has not begun `max_wait` after submit() is withdrawn (WriteQueueBusy;
//   it never runs). A write once begun is waited for: its batch takes at most `lock_wait` for the
//   lock plus the writes' own time. WriteQueueBusy is a DbBusy: nothing was written, retry later.
// - Shutdown. close() (and the destructor) refuses new writes (WriteQueueClosed), lets the
//   writer run every write already queued, then joins it: an accepted write is never dropped.
// - A write runs on the writer thread with the writer's connection and must not keep it: no
//   BEGIN, COMMIT or ROLLBACK (its batch's transaction is open; savepoints of its own are fine),
//   no submit() to its own queue (refused: it would wait for itself), no Db& kept after it.
// - The queue must outlive every submit() in flight: destroy it once its callers are done (as
//   `serve` does, after joining its workers); close() alone may race with them.
//
// The connection is opened by the writer on its first batch (WAL, foreign keys, a busy handler of
// `lock_wait`, as every Db). Readers keep their own connections and see a batch when it commits.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/db.h"
#include "core/error.h"

namespace convfail {

// The batch a write was in failed as a whole: nothing of it was written. cause() is the failure
// (DbBusy when the database stayed locked by another process past the lock wait).
class WriteNotStored : public UserError {
 public:
  WriteNotStored(const std::string& what, std::exception_ptr cause)
      : UserError(what), cause_(std::move(cause)) {}
  const std::exception_ptr& cause() const { return cause_; }

 private:
  std::exception_ptr cause_;
};

// The queue is full, or the write waited `max_wait` without its turn: not written, retry later.
class WriteQueueBusy : public DbBusy {
 public:
  explicit WriteQueueBusy(const std::string& what) : DbBusy(what) {}
};

// The queue was closed before the write was submitted: not written.
class WriteQueueClosed : public UserError {
 public:
  explicit WriteQueueClosed(const std::string& what) : UserError(what) {}
};

struct WriteQueueOptions {
  std::chrono::milliseconds lock_wait{10000};  // the writer's busy timeout (Db::set_busy_timeout)
  std::size_t max_queued = 1024;               // writes waiting for the writer
  std::chrono::milliseconds max_wait{60000};   // submit() to its batch's start; zero: no bound
};

class WriteQueue {
 public:
  explicit WriteQueue(std::string db_path, WriteQueueOptions options = {});
  ~WriteQueue();  // close()
  WriteQueue(const WriteQueue&) = delete;
  WriteQueue& operator=(const WriteQueue&) = delete;

  // Runs write(db) on the writer thread, inside a batch's transaction; returns what it returned
  // once the batch is committed, or throws (see the contract above).
  template <class F>
  std::invoke_result_t<F&, Db&> submit(F&& write) {
    using R = std::invoke_result_t<F&, Db&>;
    if constexpr (std::is_void_v<R>) {
      run([&](Db& db) { write(db); });
    } else {
      std::optional<R> result;
      run([&](Db& db) { result.emplace(write(db)); });
      return std::move(*result);
    }
  }

  // Refuses new writes, runs those queued, joins the writer. Idempotent.
  void close();

  // Waits until no write is queued or being written, at most `at_most`; true when idle. (The web
  // lets label posts go before reads this way: writes are short, reads many.)
  bool wait_idle(std::chrono::milliseconds at_most);

  struct Stats {
    std::uint64_t batches = 0;         // transactions committed
    std::uint64_t committed = 0;       // writes committed
    std::uint64_t refused = 0;         // writes that threw (rolled back to their savepoint)
    std::uint64_t failed_batches = 0;  // batches not stored (WriteNotStored)
    std::uint64_t withdrawn = 0;       // writes that did not get their turn within max_wait
    std::size_t largest_batch = 0;     // writes in the largest batch run
    std::size_t queued = 0;            // writes waiting now
  };
  Stats stats() const;

  const std::string& path() const { return path_; }

 private:
  struct Job;
  void run(const std::function<void(Db&)>& write);
  void writer();
  void write_batch(const std::vector<Job*>& batch);

  std::string path_;
  WriteQueueOptions options_;
  std::unique_ptr<Db> db_;  // the writer's; opened on its first batch
  mutable std::mutex mutex_;
  std::condition_variable wake_;  // the writer: a write queued, or closing
  std::condition_variable idle_;  // wait_idle(): nothing queued nor being written
  std::mutex close_mutex_;        // one close() joins the writer
  std::deque<Job*> queue_;
  bool writing_ = false;
  bool closing_ = false;
  Stats stats_;
  std::thread thread_;
};

}  // namespace convfail
