#include "repro/sandbox.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>

extern char** environ;

namespace convfail::repro {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Writing to a dead child's stdin must be an EPIPE error, not a SIGPIPE that kills convfail.
void ignore_sigpipe() {
  static std::once_flag once;
  std::call_once(once, [] { signal(SIGPIPE, SIG_IGN); });
}

std::map<std::string, std::string> effective_env(const SandboxSpec& spec) {
  if (!spec.env.empty()) return spec.env;
  std::map<std::string, std::string> env;
  for (const char* name : {"PATH", "HOME", "LANG", "TMPDIR"})
    if (const char* v = std::getenv(name)) env[name] = v;
  if (!env.count("PATH")) env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  return env;
}

std::string find_program(const std::string& name, const std::map<std::string, std::string>& env) {
  if (name.find('/') != std::string::npos) return name;
  auto it = env.find("PATH");
  std::string path =
      it != env.end() ? it->second : (std::getenv("PATH") ? std::getenv("PATH") : "");
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

void set_limit(int resource, std::uint64_t value) {
  if (value == 0) return;
  struct rlimit rl;
  rl.rlim_cur = rl.rlim_max = static_cast<rlim_t>(value);
  if (resource == RLIMIT_CPU) rl.rlim_max = rl.rlim_cur + 1;  // SIGXCPU first, then SIGKILL
  setrlimit(resource, &rl);
}

// Closes every descriptor >= 3 in the child (after fork: async-signal-safe calls only).
void close_other_fds() {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0) return;
#endif
  long max_fd = sysconf(_SC_OPEN_MAX);
  if (max_fd < 0 || max_fd > 65536) max_fd = 65536;
  for (int fd = 3; fd < max_fd; ++fd) close(fd);
}

struct Pipes {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  void close_all() {
    for (int* p : {in, out, err})
      for (int i = 0; i < 2; ++i)
        if (p[i] >= 0) close(p[i]), p[i] = -1;
  }
};

// Run by /bin/sh inside a fresh mount namespace as `sh -c SCRIPT sandbox DIR PROGRAM ARGS...`:
// DIR becomes a mount of its own, then every other mount except the kernel's pseudo file systems
// is remounted read-only, then PROGRAM runs. A mount that cannot be made read-only (a mount
// point with escaped characters) stops the run rather than leaving it writable.
const char* const kReadOnlyMounts =
    "set -ef; w=$1; shift\n"
    "mount --bind \"$w\" \"$w\"\n"
    "for m in $(cut -d' ' -f5 /proc/self/mountinfo); do\n"
    "  case $m in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*) continue;; esac\n"
    "  [ \"$m\" = \"$w\" ] && continue\n"
    "  mount -o remount,bind,ro \"$m\" || { echo \"sandbox: cannot make $m read-only\" >&2; exit "
    "126; }\n"
    "done\n"
    "exec \"$@\"\n";

// `unshare -m ... sh -c kReadOnlyMounts sandbox DIR`: prefix of a command line that runs it on a
// read-only file system but for DIR (no network isolation of its own).
std::vector<std::string> read_only_prefix(const std::string& dir) {
  return {"unshare", "-m", "--propagation", "private", "--",
          "/bin/sh", "-c", kReadOnlyMounts, "sandbox", dir};
}

// Forks and execs; returns the pid or -1 with *error. The parent ends of the pipes stay in
// `pipes` (in[1], out[0], err[0]); the child ends are closed in the parent.
int spawn(const SandboxSpec& spec, Pipes& pipes, std::string* error) {
  ignore_sigpipe();
  if (spec.argv.empty()) {
    *error = "empty command";
    return -1;
  }
  auto env = effective_env(spec);
  std::vector<std::string> argv = spec.argv;
  if (spec.limits.no_network && network_isolation_available())
    argv.insert(argv.begin(), {"unshare", "-n", "--"});
  if (!spec.limits.writable_dir.empty() && filesystem_isolation_available()) {
    auto prefix = read_only_prefix(spec.limits.writable_dir);
    argv.insert(argv.begin(), prefix.begin(), prefix.end());
  }
  std::string program = find_program(argv[0], env);
  if (program.empty()) {
    *error = "program not found: " + argv[0];
    return -1;
  }
  // Everything the child needs is prepared before fork.
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> c_argv, c_env;
  for (auto& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));
  c_argv.push_back(nullptr);
  for (auto& e : env_strings) c_env.push_back(const_cast<char*>(e.c_str()));
  c_env.push_back(nullptr);

  if (pipe2(pipes.in, O_CLOEXEC) != 0 || pipe2(pipes.out, O_CLOEXEC) != 0 ||
      pipe2(pipes.err, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    pipes.close_all();
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    pipes.close_all();
    return -1;
  }
  if (pid == 0) {
    setpgid(0, 0);  // own process group: a timeout kills grandchildren too
    signal(SIGPIPE, SIG_DFL);
    dup2(pipes.in[0], 0);
    dup2(pipes.out[1], 1);
    dup2(pipes.err[1], 2);
    close_other_fds();
    set_limit(RLIMIT_AS, spec.limits.memory_bytes);
    set_limit(RLIMIT_CPU, spec.limits.cpu_seconds);
    set_limit(RLIMIT_FSIZE, spec.limits.file_size_bytes);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) {
      const char msg[] = "sandbox: cannot enter working directory\n";
      (void)!write(2, msg, sizeof msg - 1);
      _exit(127);
    }
    execve(program.c_str(), c_argv.data(), c_env.data());
    const char msg[] = "sandbox: exec failed\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent, so kill(-pid) works without a race
  close(pipes.in[0]), pipes.in[0] = -1;
  close(pipes.out[1]), pipes.out[1] = -1;
  close(pipes.err[1]), pipes.err[1] = -1;
  fcntl(pipes.in[1], F_SETFL, O_NONBLOCK);
  return pid;
}

// How a child that reported an allocation failure says so (C++, Python, Node/V8, glibc, ORT).
bool mentions_memory_exhaustion(const std::string& text) {
  static const char* const kMarkers[] = {
      "std::bad_alloc",         "MemoryError",
      "out of memory",          "Out of memory",
      "Cannot allocate memory", "failed to allocate",
      "Failed to allocate",     "Fatal process out of memory",
      "Zone Allocation failed", "heap out of memory",
  };
  for (const char* m : kMarkers)
    if (text.find(m) != std::string::npos) return true;
  return false;
}

void classify(SandboxResult& r, int status, bool timed_out, std::uint64_t memory_limit) {
  if (timed_out) {
    r.kind = ExitKind::kTimeout;
  } else if (WIFEXITED(status)) {
    r.kind = ExitKind::kExited;
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.kind = ExitKind::kSignaled;
    r.signal = WTERMSIG(status);
  }
  bool failed = r.kind != ExitKind::kExited || r.exit_code != 0;
  bool near_limit =
      memory_limit > 0 && static_cast<std::uint64_t>(r.max_rss_kb) * 1024 > memory_limit * 9 / 10;
  if (!timed_out && failed && (mentions_memory_exhaustion(r.stderr_text) || near_limit))
    r.kind = ExitKind::kMemoryExhausted;
}

void append_capped(std::string& dst, const char* data, size_t n, size_t cap, bool* truncated) {
  size_t room = dst.size() < cap ? cap - dst.size() : 0;
  if (n > room) *truncated = true;
  dst.append(data, std::min(n, room));
}

// Keeps the last `cap` bytes.
void append_tail(std::string& dst, const char* data, size_t n, size_t cap) {
  dst.append(data, n);
  if (dst.size() > cap) dst.erase(0, dst.size() - cap);
}

int wait_child(int pid, struct rusage* ru) {
  int status = 0;
  while (wait4(pid, &status, 0, ru) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGKILL:
      return "SIGKILL";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGXFSZ:
      return "SIGXFSZ";
    case SIGTERM:
      return "SIGTERM";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGTRAP:
      return "SIGTRAP";
    default:
      return "signal " + std::to_string(sig);
  }
}

std::string SandboxResult::describe() const {
  switch (kind) {
    case ExitKind::kExited:
      return "exit " + std::to_string(exit_code);
    case ExitKind::kSignaled:
      return "signal " + signal_name(signal);
    case ExitKind::kTimeout: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "timeout after %.1f s", wall_ms / 1000);
      return buf;
    }
    case ExitKind::kMemoryExhausted:
      return "memory exhausted";
    case ExitKind::kSpawnFailed:
      return "spawn failed: " + error;
  }
  return "unknown";
}

bool network_isolation_available() {
  static int available = -1;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (available < 0) {
    SandboxSpec probe;
    probe.argv = {"unshare", "-n", "--", "true"};
    probe.limits.wall_seconds = 5;
    probe.limits.no_network = false;
    available = run_sandboxed(probe).ok() ? 1 : 0;
  }
  return available == 1;
}

bool filesystem_isolation_available() {
  static int available = -1;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (available < 0) {
    // Inside the wrapper the probe directory must be writable and its sibling path must not be.
    char dir[] = "/tmp/convfail-fsprobe-XXXXXX";
    if (mkdtemp(dir) == nullptr) return false;
    const std::string inside = std::string(dir) + "/w", outside = std::string(dir) + ".outside";
    SandboxSpec probe;
    probe.argv = read_only_prefix(dir);
    for (const char* a : {"/bin/sh", "-c", "touch \"$0\" && ! touch \"$1\" 2>/dev/null"})
      probe.argv.push_back(a);
    probe.argv.push_back(inside);
    probe.argv.push_back(outside);
    probe.limits.wall_seconds = 10;
    available = run_sandboxed(probe).ok() ? 1 : 0;
    unlink(inside.c_str());
    unlink(outside.c_str());
    rmdir(dir);
  }
  return available == 1;
}

SandboxResult run_sandboxed(const SandboxSpec& spec) {
  SandboxResult r;
  auto t0 = Clock::now();
  Pipes pipes;
  int pid = spawn(spec, pipes, &r.error);
  if (pid < 0) {
    r.kind = ExitKind::kSpawnFailed;
    return r;
  }
  size_t written = 0;
  if (spec.stdin_data.empty()) close(pipes.in[1]), pipes.in[1] = -1;
  bool timed_out = false;
  char buf[65536];
  auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(spec.limits.wall_seconds));
  while (pipes.out[0] >= 0 || pipes.err[0] >= 0) {
    double left_ms = std::chrono::duration<double, std::milli>(deadline - Clock::now()).count();
    if (left_ms <= 0) {
      timed_out = true;
      break;
    }
    struct pollfd fds[3];
    int n = 0;
    int idx_out = -1, idx_err = -1, idx_in = -1;
    if (pipes.out[0] >= 0) fds[idx_out = n++] = {pipes.out[0], POLLIN, 0};
    if (pipes.err[0] >= 0) fds[idx_err = n++] = {pipes.err[0], POLLIN, 0};
    if (pipes.in[1] >= 0) fds[idx_in = n++] = {pipes.in[1], POLLOUT, 0};
    int rc = poll(fds, n, static_cast<int>(std::min(left_ms, 1000.0)) + 1);
    if (rc < 0 && errno != EINTR) break;
    if (rc <= 0) continue;
    auto drain = [&](int idx, int& fd, std::string& dst) {
      if (idx < 0 || !(fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) return;
      ssize_t got = read(fd, buf, sizeof buf);
      if (got > 0) {
        append_capped(dst, buf, static_cast<size_t>(got), spec.max_output_bytes,
                      &r.output_truncated);
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(fd), fd = -1;
      }
    };
    drain(idx_out, pipes.out[0], r.stdout_text);
    drain(idx_err, pipes.err[0], r.stderr_text);
    if (idx_in >= 0 && (fds[idx_in].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t put =
          write(pipes.in[1], spec.stdin_data.data() + written, spec.stdin_data.size() - written);
      if (put > 0) written += static_cast<size_t>(put);
      if ((put < 0 && errno != EAGAIN && errno != EINTR) || written == spec.stdin_data.size())
        close(pipes.in[1]), pipes.in[1] = -1;
    }
  }
  if (timed_out) kill(-pid, SIGKILL);
  pipes.close_all();
  struct rusage ru {};
  int status = wait_child(pid, &ru);
  kill(-pid, SIGKILL);  // leftover grandchildren of a child that exited
  r.max_rss_kb = ru.ru_maxrss;
  r.wall_ms = ms_since(t0);
  classify(r, status, timed_out, spec.limits.memory_bytes);
  return r;
}

SandboxResult run_in_fork(
    const std::function<void(const std::function<void(const std::string&)>&)>& fn,
    const SandboxLimits& limits) {
  ignore_sigpipe();
  SandboxResult r;
  auto t0 = Clock::now();
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]), close(out[1]);
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    for (int fd : {out[0], out[1], err[0], err[1]}) close(fd);
    return r;
  }
  if (pid == 0) {
    setpgid(0, 0);
    close(out[0]);
    close(err[0]);
    set_limit(RLIMIT_AS, limits.memory_bytes);
    set_limit(RLIMIT_CPU, limits.cpu_seconds);
    set_limit(RLIMIT_FSIZE, limits.file_size_bytes);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    auto write_all = [](int fd, const std::string& s) {
      size_t done = 0;
      while (done < s.size()) {
        ssize_t n = write(fd, s.data() + done, s.size() - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
    };
    int code = 0;
    try {
      fn([&](const std::string& text) { write_all(out[1], text); });
    } catch (const std::exception& e) {
      write_all(err[1], e.what());
      code = 2;
    } catch (...) {
      code = 2;
    }
    _exit(code);  // no destructors, no atexit: the parent's state is the parent's
  }
  setpgid(pid, pid);
  close(out[1]);
  close(err[1]);
  bool timed_out = false, truncated = false;
  char buf[65536];
  int fds_open[2] = {out[0], err[0]};
  std::string* dst[2] = {&r.stdout_text, &r.stderr_text};
  auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(limits.wall_seconds));
  while (fds_open[0] >= 0 || fds_open[1] >= 0) {
    double left_ms = std::chrono::duration<double, std::milli>(deadline - Clock::now()).count();
    if (left_ms <= 0) {
      timed_out = true;
      break;
    }
    struct pollfd p[2] = {{fds_open[0], POLLIN, 0}, {fds_open[1], POLLIN, 0}};
    int rc = poll(p, 2, static_cast<int>(std::min(left_ms, 1000.0)) + 1);
    if (rc < 0 && errno != EINTR) break;
    if (rc <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds_open[i] < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(fds_open[i], buf, sizeof buf);
      if (got > 0)
        append_capped(*dst[i], buf, static_cast<size_t>(got), 4 << 20, &truncated);
      else if (got == 0 || (errno != EINTR && errno != EAGAIN))
        close(fds_open[i]), fds_open[i] = -1;
    }
  }
  if (timed_out) kill(-pid, SIGKILL);
  for (int fd : fds_open)
    if (fd >= 0) close(fd);
  struct rusage ru {};
  int status = wait_child(pid, &ru);
  r.output_truncated = truncated;
  r.max_rss_kb = ru.ru_maxrss;
  r.wall_ms = ms_since(t0);
  classify(r, status, timed_out, limits.memory_bytes);
  return r;
}

// ---- PersistentChild ----

PersistentChild::PersistentChild(SandboxSpec spec) : spec_(std::move(spec)) {}

PersistentChild::~PersistentChild() {
  stop();
}

bool PersistentChild::start(std::string* error) {
  Pipes pipes;
  int pid = spawn(spec_, pipes, error);
  if (pid < 0) return false;
  pid_ = pid;
  in_fd_ = pipes.in[1];
  out_fd_ = pipes.out[0];
  err_fd_ = pipes.err[0];
  fcntl(out_fd_, F_SETFL, O_NONBLOCK);
  fcntl(err_fd_, F_SETFL, O_NONBLOCK);
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
  r.max_rss_kb = ru.ru_maxrss;
  r.stderr_text = stderr_tail_;
  r.wall_ms = waited_ms;
  classify(r, status, timed_out, spec_.limits.memory_bytes);
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
      break;
    }
    usleep(5000);
  }
  if (pid_ > 0) reap(true, 0);
  for (int* fd : {&in_fd_, &out_fd_, &err_fd_})
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

}  // namespace convfail::repro
