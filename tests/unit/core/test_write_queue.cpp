#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/db.h"
#include "core/error.h"
#include "core/write_queue.h"
#include "test_helpers.h"

using namespace convfail;
using namespace std::chrono_literals;

namespace {

// A database with one table t(id, v).
std::string table_db(const test::TempDir& dir) {
  std::string path = dir.file("w.db");
  Db db(path);
  db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  return path;
}

std::int64_t insert(Db& db, const std::string& v) {
  db.prepare("INSERT INTO t(v) VALUES (?)").bind(1, v).run();
  return db.last_insert_id();
}

std::int64_t count(const std::string& path, const std::string& where = "1") {
  Db db(path);
  return db.scalar("SELECT count(*) FROM t WHERE " + where);
}

// Holds the writer: a write (inserting 'held') that blocks until release(), submitted on its own
// thread; the constructor returns once the writer runs it.
class Hold {
 public:
  explicit Hold(WriteQueue& q) {
    auto running = started_.get_future();
    thread_ = std::thread([this, &q] {
      q.submit([this](Db& db) {
        insert(db, "held");
        started_.set_value();
        released_.wait();
      });
    });
    running.wait();
  }
  ~Hold() {
    release();
    thread_.join();
  }
  void release() {
    if (!done_) release_.set_value();
    done_ = true;
  }

 private:
  std::promise<void> started_, release_;
  std::shared_future<void> released_ = release_.get_future().share();
  bool done_ = false;
  std::thread thread_;
};

// Waits (at most 10 s) until n writes wait for the writer.
bool wait_queued(const WriteQueue& q, std::size_t n) {
  auto until = std::chrono::steady_clock::now() + 10s;
  while (q.stats().queued < n) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

struct Boom : std::runtime_error {
  Boom() : std::runtime_error("boom") {}
};

}  // namespace

TEST_CASE("write queue: concurrent submitters on several threads all land, once each") {
  test::TempDir dir;
  std::string path = table_db(dir);
  WriteQueue q(path);
  constexpr int kThreads = 8, kEach = 50;
  std::vector<std::vector<std::int64_t>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i)
        ids[t].push_back(q.submit(
            [&](Db& db) { return insert(db, std::to_string(t) + "-" + std::to_string(i)); }));
    });
  for (auto& t : threads) t.join();
  std::set<std::int64_t> all;
  for (const auto& v : ids) all.insert(v.begin(), v.end());
  CHECK(all.size() == kThreads * kEach);  // every write got its own row id back
  CHECK(count(path) == kThreads * kEach);
  CHECK(count(path, "v GLOB '*-*'") == kThreads * kEach);
  WriteQueue::Stats s = q.stats();
  CHECK(s.committed == kThreads * kEach);
  CHECK(s.batches <= s.committed);
  CHECK(s.refused == 0);
  CHECK(s.failed_batches == 0);
  MESSAGE(s.committed << " writes from " << kThreads << " threads in " << s.batches
                      << " transactions, largest batch " << s.largest_batch);
}

TEST_CASE("write queue: writes submitted while the writer is held are committed in one batch") {
  test::TempDir dir;
  std::string path = table_db(dir);
  WriteQueue q(path);
  constexpr int kN = 20;
  std::vector<std::thread> threads;
  {
    Hold hold(q);
    CHECK_FALSE(q.wait_idle(10ms));  // the held write is being written
    for (int i = 0; i < kN; ++i)
      threads.emplace_back(
          [&, i] { q.submit([&](Db& db) { insert(db, "w" + std::to_string(i)); }); });
    REQUIRE(wait_queued(q, kN));
    CHECK(count(path) == 0);  // nothing committed while held (the held write's batch is open)
  }
  for (auto& t : threads) t.join();
  CHECK(q.wait_idle(1s));
  WriteQueue::Stats s = q.stats();
  CHECK(s.batches == 2);  // the held write's, then the 20 together
  CHECK(s.largest_batch == kN);
  CHECK(s.committed == kN + 1);
  CHECK(count(path) == kN + 1);
}

TEST_CASE("write queue: a throwing write gets its exception, the others of its batch commit") {
  test::TempDir dir;
  std::string path = table_db(dir);
  WriteQueue q(path);
  std::vector<std::thread> threads;
  std::atomic<int> booms{0}, user_errors{0}, ok{0};
  {
    Hold hold(q);
    for (int i = 0; i < 6; ++i) {
      threads.emplace_back([&, i] {
        try {
          q.submit([&](Db& db) {
            insert(db, "w" + std::to_string(i));
            if (i == 2) throw Boom();  // after its insert: rolled back with its savepoint
            if (i == 4) insert(db, std::string());                  // fine (empty text)
            if (i == 5) db.exec("INSERT INTO t(v) VALUES (NULL)");  // NOT NULL: UserError
          });
          ++ok;
        } catch (const Boom& e) {
          CHECK(std::string(e.what()) == "boom");
          ++booms;
        } catch (const UserError& e) {
          CHECK(std::string(e.what()).find("NOT NULL") != std::string::npos);
          ++user_errors;
        }
      });
      REQUIRE(wait_queued(q, static_cast<std::size_t>(i + 1)));  // queued in this order
    }
  }
  for (auto& t : threads) t.join();
  CHECK(booms == 1);
  CHECK(user_errors == 1);
  CHECK(ok == 4);
  CHECK(count(path, "v = 'w2'") == 0);
  CHECK(count(path, "v = 'w5'") == 0);
  CHECK(count(path, "v IN ('w0', 'w1', 'w3', 'w4', '')") == 5);
  WriteQueue::Stats s = q.stats();
  CHECK(s.batches == 2);
  CHECK(s.largest_batch == 6);
  CHECK(s.refused == 2);
  CHECK(s.committed == 5);  // the held write and 4 of the batch
}

TEST_CASE("write queue: another process's lock past lock_wait fails the batch (DbBusy cause)") {
  test::TempDir dir;
  std::string path = table_db(dir);
  WriteQueueOptions o;
  o.lock_wait = 100ms;
  WriteQueue q(path, o);
  Db other(path);
  other.exec("BEGIN IMMEDIATE");
  auto t0 = std::chrono::steady_clock::now();
  try {
    q.submit([](Db& db) { insert(db, "locked out"); });
    FAIL("no exception");
  } catch (const WriteNotStored& e) {
    CHECK(std::string(e.what()).find("not stored (its batch of 1 writes failed)") == 0);
    CHECK_THROWS_AS(std::rethrow_exception(e.cause()), DbBusy);
  }
  CHECK(std::chrono::steady_clock::now() - t0 >= 100ms);
  other.exec("ROLLBACK");
  CHECK(count(path) == 0);
  // The lock released: the next batch goes.
  q.submit([](Db& db) { insert(db, "after"); });
  WriteQueue::Stats s = q.stats();
  CHECK(s.failed_batches == 1);
  CHECK(s.batches == 1);
  // A lock shorter than lock_wait (10 s by default) is waited out.
  WriteQueue patient(path);
  other.exec("BEGIN IMMEDIATE");
  std::thread releaser([&] {
    std::this_thread::sleep_for(50ms);
    other.exec("ROLLBACK");
  });
  patient.submit([](Db& db) { insert(db, "waited"); });
  releaser.join();
  CHECK(count(path) == 2);
  CHECK(patient.stats().failed_batches == 0);
}

TEST_CASE("write queue: a full queue and a write without its turn within max_wait are refused") {
  test::TempDir dir;
  std::string path = table_db(dir);
  SUBCASE("max_queued") {
    WriteQueueOptions o;
    o.max_queued = 3;
    WriteQueue q(path, o);
    std::vector<std::thread> threads;
    {
      Hold hold(q);
      for (int i = 0; i < 3; ++i)
        threads.emplace_back([&] { q.submit([](Db& db) { insert(db, "q"); }); });
      REQUIRE(wait_queued(q, 3));
      CHECK_THROWS_WITH_AS(q.submit([](Db& db) { insert(db, "over"); }),
                           doctest::Contains("3 writes already wait for the writer"),
                           WriteQueueBusy);
    }
    for (auto& t : threads) t.join();
    CHECK(count(path, "v = 'q'") == 3);
    CHECK(count(path, "v = 'over'") == 0);
  }
  SUBCASE("max_wait") {
    WriteQueueOptions o;
    o.max_wait = 100ms;
    WriteQueue q(path, o);
    {
      Hold hold(q);
      auto t0 = std::chrono::steady_clock::now();
      // A DbBusy: `serve` answers it 503 with Retry-After.
      CHECK_THROWS_WITH_AS(q.submit([](Db& db) { insert(db, "late"); }),
                           doctest::Contains("no turn within 100 ms"), DbBusy);
      CHECK(std::chrono::steady_clock::now() - t0 >= 100ms);
      CHECK(q.stats().queued == 0);  // withdrawn
    }
    CHECK(q.wait_idle(1s));
    CHECK(count(path, "v = 'late'") == 0);  // and never run
    CHECK(q.stats().withdrawn == 1);
  }
}

TEST_CASE("write queue: close() runs the writes already queued, then refuses new ones") {
  test::TempDir dir;
  std::string path = table_db(dir);
  WriteQueue q(path);
  std::vector<std::thread> threads;
  std::atomic<int> done{0};
  std::thread closer;
  {
    Hold hold(q);
    for (int i = 0; i < 5; ++i)
      threads.emplace_back([&] {
        q.submit([](Db& db) { insert(db, "queued"); });
        ++done;
      });
    REQUIRE(wait_queued(q, 5));
    closer = std::thread([&] { q.close(); });  // waits for the held write and the queued ones
  }
  closer.join();
  for (auto& t : threads) t.join();
  CHECK(done == 5);
  CHECK(count(path, "v = 'queued'") == 5);
  CHECK_THROWS_WITH_AS(q.submit([](Db& db) { insert(db, "late"); }),
                       doctest::Contains("the write queue is closed"), WriteQueueClosed);
  q.close();  // again: nothing
  CHECK(count(path, "v = 'late'") == 0);
}

TEST_CASE("write queue: results, void writes, a nested submit, an unopenable database") {
  test::TempDir dir;
  std::string path = table_db(dir);
  WriteQueue q(path);
  CHECK(q.submit([](Db& db) { return std::to_string(insert(db, "a")); }) == "1");
  q.submit([](Db& db) { insert(db, "b"); });
  // A write that submits to its own queue would wait for itself: refused, as its own failure.
  CHECK_THROWS_WITH_AS(q.submit([&](Db& db) {
    insert(db, "outer");
    q.submit([](Db& inner) { insert(inner, "inner"); });
  }),
                       doctest::Contains("its own queue"), std::logic_error);
  CHECK(count(path) == 2);

  // The writer opens its connection on its first batch: a failure is the batch's, retried later.
  WriteQueue nowhere(dir.file("missing/dir/x.db"));
  try {
    nowhere.submit([](Db& db) { insert(db, "x"); });
    FAIL("no exception");
  } catch (const WriteNotStored& e) {
    CHECK(std::string(e.what()).find("cannot open database") != std::string::npos);
    CHECK_THROWS_AS(std::rethrow_exception(e.cause()), UserError);
  }
  CHECK(nowhere.stats().failed_batches == 1);
}
