#include "exec/persistent_child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "core/interrupt.h"
#include "exec/child_process.h"

namespace convfail::exec {

using namespace detail;

PersistentChild::PersistentChild(SandboxSpec spec) : spec_(std::move(spec)) {}

PersistentChild::~PersistentChild() {
  stop();
}

bool PersistentChild::start(std::string* error) {
  Pipes pipes;
  Spawned child = spawn(spec_, Mode::kAuto, pipes, error);
  if (child.pid < 0) return false;
  pid_ = child.pid;
  sandboxed_ = child.sandboxed;
  in_fd_ = pipes.in[1];
  out_fd_ = pipes.out[0];
  err_fd_ = pipes.err[0];
  status_fd_ = pipes.status[0];
  status_text_.clear();
  out_buf_.clear();
  stderr_tail_.clear();
  ++starts_;
  return true;
}

SandboxResult PersistentChild::reap(bool timed_out, double waited_ms) {
  SandboxResult r;
  if (pid_ <= 0) return r;
  if (timed_out) kill(-pid_, SIGKILL);
  for (int* fd : {&in_fd_, &out_fd_, &err_fd_})
    if (*fd >= 0) close(*fd), *fd = -1;
  struct rusage ru {};
  int status = wait_child(pid_, &ru);
  kill(-pid_, SIGKILL);
  pid_ = -1;
  if (status_fd_ >= 0) read_available(status_fd_, status_text_, 4096);
  if (status_fd_ >= 0) close(status_fd_), status_fd_ = -1;
  if (sandboxed_) wait_sandbox_gone(status_child_pid(status_text_));
  r.max_rss_kb = ru.ru_maxrss;
  r.stderr_text = stderr_tail_;
  r.wall_ms = waited_ms;
  finish(r, sandboxed_, status, timed_out, status_text_, spec_.limits.memory_bytes);
  return r;
}

void PersistentChild::stop() {
  if (pid_ <= 0) return;
  close(in_fd_), in_fd_ = -1;  // a well-behaved child exits on EOF
  for (int i = 0; i < 20; ++i) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      kill(-pid_, SIGKILL);
      pid_ = -1;
      if (status_fd_ >= 0) read_available(status_fd_, status_text_, 4096);
      if (sandboxed_) wait_sandbox_gone(status_child_pid(status_text_));
      break;
    }
    usleep(5000);
  }
  if (pid_ > 0) reap(true, 0);
  for (int* fd : {&in_fd_, &out_fd_, &err_fd_, &status_fd_})
    if (*fd >= 0) close(*fd), *fd = -1;
}

PersistentChild::Reply PersistentChild::request(const std::string& request,
                                                double timeout_seconds) {
  Reply reply;
  if (pid_ <= 0) {
    std::string error;
    if (!start(&error)) {
      reply.failure.kind = ExitKind::kSpawnFailed;
      reply.failure.error = error;
      return reply;
    }
  }
  if (timeout_seconds <= 0) timeout_seconds = spec_.limits.wall_seconds;
  auto t0 = Clock::now();
  auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(timeout_seconds));
  std::string pending = request + "\n";
  size_t written = 0;
  char buf[65536];
  const size_t kTail = 64 << 10;
  for (;;) {
    size_t nl = out_buf_.find('\n');
    if (nl != std::string::npos) {
      reply.line = out_buf_.substr(0, nl);
      out_buf_.erase(0, nl + 1);
      return reply;
    }
    double left_ms = std::chrono::duration<double, std::milli>(deadline - Clock::now()).count();
    if (left_ms <= 0) {
      reply.failure = reap(true, ms_since(t0));
      return reply;
    }
    if (interrupted()) {  // the job stops (core/interrupt.h): this answer would not be used
      reply.failure = reap(true, ms_since(t0));
      reply.failure.error = "interrupted by " + interrupt_name(interrupt_signal());
      return reply;
    }
    struct pollfd fds[3];
    int n = 0;
    fds[n++] = {out_fd_, POLLIN, 0};
    fds[n++] = {err_fd_ >= 0 ? err_fd_ : -1, POLLIN, 0};
    bool writing = written < pending.size();
    fds[n++] = {writing ? in_fd_ : -1, POLLOUT, 0};
    int rc = poll(fds, n, static_cast<int>(std::min(left_ms, 1000.0)) + 1);
    if (rc < 0 && errno != EINTR) {
      reply.failure = reap(true, ms_since(t0));
      return reply;
    }
    if (rc <= 0) continue;
    if (status_fd_ >= 0) read_available(status_fd_, status_text_, 4096);
    if (fds[1].fd >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t got = read(err_fd_, buf, sizeof buf);
      if (got > 0)
        append_tail(stderr_tail_, buf, static_cast<size_t>(got), kTail);
      else if (got == 0 || (errno != EAGAIN && errno != EINTR))
        close(err_fd_), err_fd_ = -1;
    }
    if (writing && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t put = write(in_fd_, pending.data() + written, pending.size() - written);
      if (put > 0) written += static_cast<size_t>(put);
      // EPIPE: the child is gone; reading stdout will show EOF and we reap it there.
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t got = read(out_fd_, buf, sizeof buf);
      if (got > 0) {
        if (out_buf_.size() < spec_.max_output_bytes)
          out_buf_.append(buf, static_cast<size_t>(got));
      } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
        // EOF: the child died (or closed stdout). Collect the rest of stderr, then reap.
        if (err_fd_ >= 0) {
          fcntl(err_fd_, F_SETFL, 0);
          struct pollfd pe = {err_fd_, POLLIN, 0};
          while (poll(&pe, 1, 200) > 0) {
            ssize_t more = read(err_fd_, buf, sizeof buf);
            if (more <= 0) break;
            append_tail(stderr_tail_, buf, static_cast<size_t>(more), kTail);
          }
        }
        reply.failure = reap(false, ms_since(t0));
        return reply;
      }
    }
  }
}

}  // namespace convfail::exec
