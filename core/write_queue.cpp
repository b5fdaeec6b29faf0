#include "core/write_queue.h"

#include <algorithm>
#include <stdexcept>

namespace convfail {

namespace {

std::string what_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown error";
  }
}

}  // namespace

// A submitted write, on its caller's stack until done.
struct WriteQueue::Job {
  enum class State { kQueued, kRunning, kDone };
  const std::function<void(Db&)>* write;
  State state = State::kQueued;
  std::exception_ptr error;        // the write's own: rethrown as it is
  std::exception_ptr batch_error;  // its batch's: WriteNotStored
  std::size_t batch_size = 0;
  std::condition_variable done;  // state is kDone (notified under mutex_)
};

WriteQueue::WriteQueue(std::string db_path, WriteQueueOptions options)
    : path_(std::move(db_path)), options_(options) {
  thread_ = std::thread([this] { writer(); });
}

WriteQueue::~WriteQueue() {
  close();
}

void WriteQueue::close() {
  std::lock_guard<std::mutex> joining(close_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void WriteQueue::run(const std::function<void(Db&)>& write) {
  Job job;
  job.write = &write;
  std::unique_lock<std::mutex> lock(mutex_);
  if (std::this_thread::get_id() == thread_.get_id())
    throw std::logic_error("database " + path_ +
                           ": a write submitted another write to its own queue (it would wait "
                           "for itself)");
  if (closing_)
    throw WriteQueueClosed("database " + path_ +
                           ": the write queue is closed (shutting down): not written");
  if (queue_.size() >= options_.max_queued)
    throw WriteQueueBusy("database " + path_ + ": " + std::to_string(queue_.size()) +
                         " writes already wait for the writer: not written, try again");
  queue_.push_back(&job);
  wake_.notify_one();
  auto begun = [&] { return job.state != Job::State::kQueued; };
  if (options_.max_wait.count() > 0 && !job.done.wait_for(lock, options_.max_wait, begun)) {
    queue_.erase(std::find(queue_.begin(), queue_.end(), &job));
    ++stats_.withdrawn;
    if (queue_.empty() && !writing_) idle_.notify_all();
    throw WriteQueueBusy("database " + path_ + ": the write had no turn within " +
                         std::to_string(options_.max_wait.count()) +
                         " ms (the writer is held up: another process's lock?): not written, "
                         "try again");
  }
  job.done.wait(lock, [&] { return job.state == Job::State::kDone; });
  if (job.batch_error)
    throw WriteNotStored("not stored (its batch of " + std::to_string(job.batch_size) +
                             " writes failed): " + what_of(job.batch_error),
                         job.batch_error);
  if (job.error) std::rethrow_exception(job.error);
}

void WriteQueue::writer() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return closing_ || !queue_.empty(); });
    if (queue_.empty()) return;  // closing, and every accepted write is done
    std::vector<Job*> batch(queue_.begin(), queue_.end());
    queue_.clear();
    for (Job* j : batch) j->state = Job::State::kRunning;
    writing_ = true;
    lock.unlock();
    write_batch(batch);
    lock.lock();
    writing_ = false;
    stats_.largest_batch = std::max(stats_.largest_batch, batch.size());
    if (batch.front()->batch_error) {
      ++stats_.failed_batches;
    } else {
      ++stats_.batches;
      for (Job* j : batch) ++(j->error ? stats_.refused : stats_.committed);
    }
    // Notified under the mutex: a caller may return (and free its job) once it has the mutex.
    for (Job* j : batch) {
      j->state = Job::State::kDone;
      j->batch_size = batch.size();
      j->done.notify_one();
    }
    if (queue_.empty()) idle_.notify_all();
  }
}

void WriteQueue::write_batch(const std::vector<Job*>& batch) {
  try {
    if (!db_) {
      auto db = std::make_unique<Db>(path_);
      db->set_busy_timeout(options_.lock_wait);
      db_ = std::move(db);
    }
    Transaction tx(*db_);
    for (Job* j : batch) {
      db_->exec("SAVEPOINT convfail_write");
      try {
        (*j->write)(*db_);
        db_->exec("RELEASE convfail_write");
        continue;
      } catch (...) {
        j->error = std::current_exception();
      }
      db_->exec("ROLLBACK TO convfail_write");
      db_->exec("RELEASE convfail_write");
    }
    tx.commit();
  } catch (...) {  // nothing of the batch is written (the transaction is rolled back)
    for (Job* j : batch) j->batch_error = std::current_exception();
  }
}

bool WriteQueue::wait_idle(std::chrono::milliseconds at_most) {
  std::unique_lock<std::mutex> lock(mutex_);
  return idle_.wait_for(lock, at_most, [&] { return !writing_ && queue_.empty(); });
}

WriteQueue::Stats WriteQueue::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Stats s = stats_;
  s.queued = queue_.size();
  return s;
}

}  // namespace convfail
