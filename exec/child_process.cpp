#include "exec/child_process.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>

namespace convfail::exec::detail {

namespace fs = std::filesystem;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

int pidfd_open(int pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

namespace {

// Writing to a dead child's stdin must be an EPIPE error, not a SIGPIPE that kills convfail.
void ignore_sigpipe() {
  static std::once_flag once;
  std::call_once(once, [] { signal(SIGPIPE, SIG_IGN); });
}

void set_limit(int resource, std::uint64_t value) {
  if (value == 0) return;
  struct rlimit rl;
  rl.rlim_cur = rl.rlim_max = static_cast<rlim_t>(value);
  if (resource == RLIMIT_CPU) rl.rlim_max = rl.rlim_cur + 1;  // SIGXCPU first, then SIGKILL
  setrlimit(resource, &rl);
}

void set_limits(const SandboxLimits& limits) {
  set_limit(RLIMIT_AS, limits.memory_bytes);
  set_limit(RLIMIT_CPU, limits.cpu_seconds);
  set_limit(RLIMIT_FSIZE, limits.file_size_bytes);
  set_limit(RLIMIT_NPROC, limits.max_processes);
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
}

// Closes every descriptor >= `from` in the child (after fork: async-signal-safe calls only).
void close_fds_from(int from) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, static_cast<unsigned>(from), ~0u, 0u) == 0) return;
#endif
  long max_fd = sysconf(_SC_OPEN_MAX);
  if (max_fd < 0 || max_fd > 65536) max_fd = 65536;
  for (int fd = from; fd < max_fd; ++fd) close(fd);
}

// Child side of spawn(): never returns. Reports a failure before exec as errno on `report`.
[[noreturn]] void exec_child(const Prepared& p, Pipes& pipes, int report, char* const* c_argv,
                             char* const* c_env) {
  auto fail = [&](int err) {
    (void)!write(report, &err, sizeof err);
    _exit(127);
  };
  setpgid(0, 0);  // own process group: a timeout kills the whole group
  signal(SIGPIPE, SIG_DFL);
  signal(SIGXFSZ, SIG_DFL);  // convfail ignores it (EFBIG instead); a repro child dies of it
  dup2(pipes.in[0], 0);
  dup2(pipes.out[1], 1);
  dup2(pipes.err[1], 2);
  if (!p.stage_sources.empty()) {
    // A private mount namespace of this child only: a tmpfs over /tmp holding the bind sources
    // (opened first: they may be under /tmp; after unshare, as a bind needs a mount of this
    // namespace).
    if (unshare(CLONE_NEWNS) != 0) fail(errno);
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) fail(errno);
    for (size_t i = 0; i < p.stage_sources.size(); ++i) {
      int fd = open(p.stage_sources[i].c_str(), O_PATH | O_CLOEXEC);
      if (fd < 0) fail(errno);
      p.stage_fds[i] = fd;
      // "/proc/self/fd/" + fd, written into the string reserved before fork (no allocation).
      char* link = p.fd_links[i].data();
      std::size_t at = 14, digits = 0;
      char rev[12];
      for (int v = fd; v > 0 || digits == 0; v /= 10)
        rev[digits++] = static_cast<char>('0' + v % 10);
      while (digits > 0) link[at++] = rev[--digits];
      link[at] = '\0';
    }
    if (mount("convfail-stage", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0)
      fail(errno);
    for (size_t i = 0; i < p.stage_sources.size(); ++i) {
      const char* target = p.stage_paths[i].c_str();
      if (p.stage_is_dir[i]) {
        if (mkdir(target, 0755) != 0) fail(errno);
      } else {
        int fd = open(target, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        if (fd < 0) fail(errno);
        close(fd);
      }
      if (mount(p.fd_links[i].c_str(), target, nullptr, MS_BIND | MS_REC, nullptr) != 0)
        fail(errno);
      close(p.stage_fds[i]);
    }
  }
  set_limits(p.limits);
  if (p.drop_to_nobody) {
    if (setgroups(0, nullptr) != 0 || setresgid(kNobody, kNobody, kNobody) != 0 ||
        setresuid(kNobody, kNobody, kNobody) != 0)
      fail(errno);
  }
  // The report pipe moves to descriptor `at` (close-on-exec); every descriptor above it closes.
  auto park_report = [&report](int at) {
    if (fcntl(report, F_DUPFD_CLOEXEC, at) != at) {
      dup2(report, at);
      fcntl(at, F_SETFD, FD_CLOEXEC);
    }
    report = at;
    close_fds_from(at + 1);
  };
  if (p.sandboxed) {
    // fds 3 and 4 for bwrap; first out of the way of each other, then into place.
    int seccomp_fd = fcntl(p.seccomp_fd, F_DUPFD, 10);
    int status_fd = fcntl(pipes.status[1], F_DUPFD, 10);
    if (seccomp_fd < 0 || status_fd < 0) fail(errno);
    dup2(seccomp_fd, 3);
    dup2(status_fd, 4);
    park_report(5);
    if (chdir("/") != 0) fail(errno);
  } else {
    park_report(3);
    if (!p.cwd.empty() && chdir(p.cwd.c_str()) != 0) fail(errno);
  }
  execve(p.program.c_str(), c_argv, c_env);
  fail(errno);
  _exit(127);
}

}  // namespace

// Forks and execs; returns the pid (-1 with *error). The parent ends of the pipes stay in `pipes`
// (in[1], out[0], err[0], status[0]); the child ends are closed in the parent.
Spawned spawn(const SandboxSpec& spec, Mode mode, Pipes& pipes, std::string* error) {
  ignore_sigpipe();
  Spawned out;
  Prepared p;
  if (!prepare(spec, mode, p, error)) return out;
  std::vector<char*> c_argv, c_env;
  for (auto& a : p.argv) c_argv.push_back(const_cast<char*>(a.c_str()));
  c_argv.push_back(nullptr);
  for (auto& e : p.env) c_env.push_back(const_cast<char*>(e.c_str()));
  c_env.push_back(nullptr);

  int report[2] = {-1, -1};
  if (pipe2(pipes.in, O_CLOEXEC) != 0 || pipe2(pipes.out, O_CLOEXEC) != 0 ||
      pipe2(pipes.err, O_CLOEXEC) != 0 || pipe2(pipes.status, O_CLOEXEC) != 0 ||
      pipe2(report, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    pipes.close_all();
    for (int fd : report)
      if (fd >= 0) close(fd);
    return out;
  }
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    pipes.close_all();
    close(report[0]), close(report[1]);
    return out;
  }
  if (pid == 0) {
    close(report[0]);
    exec_child(p, pipes, report[1], c_argv.data(), c_env.data());
  }
  setpgid(pid, pid);  // also from the parent, so kill(-pid) works without a race
  close(report[1]);
  close(pipes.in[0]), pipes.in[0] = -1;
  close(pipes.out[1]), pipes.out[1] = -1;
  close(pipes.err[1]), pipes.err[1] = -1;
  close(pipes.status[1]), pipes.status[1] = -1;
  int err = 0;
  ssize_t got;
  while ((got = read(report[0], &err, sizeof err)) < 0 && errno == EINTR) {
  }
  close(report[0]);
  if (got == static_cast<ssize_t>(sizeof err)) {  // the child failed before exec
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    *error = (p.sandboxed ? "cannot start the sandbox: " : "exec " + p.program + ": ") +
             std::string(std::strerror(err));
    pipes.close_all();
    return out;
  }
  fcntl(pipes.in[1], F_SETFL, O_NONBLOCK);
  for (int fd : {pipes.out[0], pipes.err[0], pipes.status[0]}) fcntl(fd, F_SETFL, O_NONBLOCK);
  out.pid = pid;
  out.sandboxed = p.sandboxed;
  return out;
}

// Reads what is available on a non-blocking descriptor into `dst` (up to `cap` bytes kept);
// closes it at EOF.
void read_available(int& fd, std::string& dst, size_t cap) {
  char buf[4096];
  while (fd >= 0) {
    ssize_t got = read(fd, buf, sizeof buf);
    if (got > 0) {
      dst.append(buf, std::min(static_cast<size_t>(got), cap > dst.size() ? cap - dst.size() : 0));
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
      close(fd), fd = -1;
    } else if (errno == EAGAIN) {
      return;
    }
  }
}

// The host pid of the sandbox's init from bwrap's status ("child-pid"), or -1.
int status_child_pid(const std::string& status) {
  auto pos = status.find("\"child-pid\":");
  if (pos == std::string::npos) return -1;
  return std::atoi(status.c_str() + pos + 12);
}

bool status_has_exit(const std::string& status) {
  return status.find("\"exit-code\":") != std::string::npos;
}

bool fatal_signal(int sig) {
  switch (sig) {
    case SIGSEGV:
    case SIGABRT:
    case SIGKILL:
    case SIGBUS:
    case SIGFPE:
    case SIGILL:
    case SIGXCPU:
    case SIGXFSZ:
    case SIGTERM:
    case SIGTRAP:
    case SIGSYS:
    case SIGPIPE:
      return true;
    default:
      return false;
  }
}

// The last line of `text` that starts with "bwrap: " (its setup error), or "".
std::string bwrap_error(const std::string& text) {
  auto pos = text.rfind("bwrap: ");
  while (pos != std::string::npos && pos > 0 && text[pos - 1] != '\n')
    pos = pos == 0 ? std::string::npos : text.rfind("bwrap: ", pos - 1);
  if (pos == std::string::npos) return "";
  auto end = text.find('\n', pos);
  return text.substr(
      pos, std::min<size_t>(end == std::string::npos ? text.size() - pos : end - pos, 300));
}

// After the outer bwrap was reaped: waits (up to 30 s) until the sandbox's init has exited too.
// bwrap's monitor exits as soon as init reports the main process's status, while init is still
// killing and reaping the rest of the PID namespace; until that is done, those processes exist
// and count against RLIMIT_NPROC of the next run (a fork bomb's hundreds take seconds).
void wait_sandbox_gone(int init_pid) {
  if (init_pid <= 0) return;
  int fd = pidfd_open(init_pid);
  if (fd < 0) return;  // already gone
  struct pollfd p = {fd, POLLIN, 0};
  while (poll(&p, 1, 30000) < 0 && errno == EINTR) {
  }
  close(fd);
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

void classify_memory(SandboxResult& r, bool timed_out, std::uint64_t memory_limit) {
  bool failed = r.kind != ExitKind::kExited || r.exit_code != 0;
  bool near_limit =
      memory_limit > 0 && static_cast<std::uint64_t>(r.max_rss_kb) * 1024 > memory_limit * 9 / 10;
  if (!timed_out && failed && (mentions_memory_exhaustion(r.stderr_text) || near_limit))
    r.kind = ExitKind::kMemoryExhausted;
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
  classify_memory(r, timed_out, memory_limit);
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

// The outcome of a sandboxed run from bwrap's exit status and JSON status: no "exit-code" record
// means bwrap's own setup failed (a spawn failure), 128+N for a fatal signal N means the child was
// killed by it (bwrap's init reports it so).
void finish(SandboxResult& r, bool sandboxed, int status, bool timed_out,
            const std::string& status_text, std::uint64_t memory_limit) {
  r.isolation = sandboxed ? kIsolationSandbox : kIsolationNone;
  if (sandboxed && !timed_out && WIFEXITED(status) && !status_has_exit(status_text)) {
    r.kind = ExitKind::kSpawnFailed;
    std::string why = bwrap_error(r.stderr_text);
    r.error = "sandbox setup failed: " +
              (why.empty() ? "bwrap exit " + std::to_string(WEXITSTATUS(status)) : why);
    return;
  }
  classify(r, status, timed_out, memory_limit);
  if (sandboxed && r.kind == ExitKind::kExited && r.exit_code > 128 &&
      fatal_signal(r.exit_code - 128)) {
    r.kind = ExitKind::kSignaled;
    r.signal = r.exit_code - 128;
    r.exit_code = -1;
    classify_memory(r, timed_out, memory_limit);
  }
}

}  // namespace convfail::exec::detail
