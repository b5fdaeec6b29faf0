#include "exec/sandbox.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "core/interrupt.h"
#include "exec/child_process.h"
#include "exec/seccomp_filter.h"

namespace convfail::exec {

using namespace detail;

namespace {
std::atomic<bool> g_unsandboxed{false};
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

void set_unsandboxed(bool value) {
  g_unsandboxed = value;
}

bool unsandboxed() {
  return g_unsandboxed;
}

namespace {

SandboxResult run_with(const SandboxSpec& spec, Mode mode);

// Runs `true` in the full sandbox; "" when it worked, else why not.
std::string probe_once() {
  SandboxResult r;
  SandboxSpec probe;
  probe.argv = {"true"};
  probe.env = {{"PATH", "/usr/bin:/bin"}};
  probe.limits.wall_seconds = 20;
  r = run_with(probe, Mode::kForceSandbox);
  if (r.ok()) return "";
  if (r.kind == ExitKind::kSpawnFailed) return r.error;
  return "bwrap " + r.describe();
}

}  // namespace

bool sandbox_available(std::string* reason) {
  std::lock_guard<std::mutex> lock(config_mutex());
  SandboxConfig& c = config();
  if (!c.probed) {
    c.probed = true;
    const char* own = std::getenv("CONVFAIL_BWRAP");
    const char* path = std::getenv("PATH");
    c.bwrap = own && *own ? std::string(own)
                          : find_program("bwrap", path ? std::string(path) : "/usr/bin:/bin");
    if (c.bwrap.empty() || access(c.bwrap.c_str(), X_OK) != 0) {
      c.reason = "bubblewrap (bwrap) not found" + (c.bwrap.empty() ? "" : ": " + c.bwrap);
    } else {
      std::string error;
      c.bpf = build_seccomp_bpf(&error);
      if (c.bpf.empty()) {
        c.reason = "seccomp filter: " + error;
      } else {
        c.reason = probe_once();
        if (!c.reason.empty() && c.reason.find("disable-userns") != std::string::npos) {
          c.disable_userns = false;  // an older bwrap: seccomp still refuses unshare and setns
          c.reason = probe_once();
        }
      }
    }
    c.available = c.reason.empty();
  }
  if (reason) *reason = c.reason;
  return c.available;
}

std::string sandbox_refusal() {
  std::string reason;
  sandbox_available(&reason);
  return "sandbox unavailable: " + reason + "; pass --unsafe-no-sandbox to run without isolation";
}

std::string current_isolation() {
  if (unsandboxed()) return kIsolationNone;
  return sandbox_available() ? kIsolationSandbox : "";
}

namespace {

SandboxResult run_with(const SandboxSpec& spec, Mode mode) {
  SandboxResult r;
  auto t0 = Clock::now();
  Pipes pipes;
  Spawned child = spawn(spec, mode, pipes, &r.error);
  if (child.pid < 0) {
    r.kind = ExitKind::kSpawnFailed;
    return r;
  }
  const int pid = child.pid;
  int pidfd = pidfd_open(pid);  // readable when the main process (or bwrap) has exited
  size_t written = 0;
  if (spec.stdin_data.empty()) close(pipes.in[1]), pipes.in[1] = -1;
  bool timed_out = false, exited = false;
  std::string status_text;
  char buf[65536];
  auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(spec.limits.wall_seconds));
  auto drain = [&](int& fd, std::string& dst) {
    for (;;) {
      ssize_t got = read(fd, buf, sizeof buf);
      if (got > 0) {
        append_capped(dst, buf, static_cast<size_t>(got), spec.max_output_bytes,
                      &r.output_truncated);
      } else {
        if (got == 0 || (errno != EINTR && errno != EAGAIN)) close(fd), fd = -1;
        if (got < 0 && errno == EINTR) continue;
        return;
      }
    }
  };
  while (!exited && (pipes.out[0] >= 0 || pipes.err[0] >= 0 || pidfd >= 0)) {
    double left_ms = std::chrono::duration<double, std::milli>(deadline - Clock::now()).count();
    if (left_ms <= 0 || interrupted()) {  // a job stopping (core/interrupt.h) does not wait
      timed_out = true;
      break;
    }
    struct pollfd fds[5];
    int n = 0;
    int idx_out = -1, idx_err = -1, idx_in = -1, idx_pid = -1, idx_status = -1;
    if (pipes.out[0] >= 0) fds[idx_out = n++] = {pipes.out[0], POLLIN, 0};
    if (pipes.err[0] >= 0) fds[idx_err = n++] = {pipes.err[0], POLLIN, 0};
    if (pipes.in[1] >= 0) fds[idx_in = n++] = {pipes.in[1], POLLOUT, 0};
    if (pidfd >= 0) fds[idx_pid = n++] = {pidfd, POLLIN, 0};
    if (pipes.status[0] >= 0) fds[idx_status = n++] = {pipes.status[0], POLLIN, 0};
    int rc = poll(fds, n, static_cast<int>(std::min(left_ms, 1000.0)) + 1);
    if (rc < 0 && errno != EINTR) break;
    if (rc <= 0) continue;
    auto ready = [&](int idx) {
      return idx >= 0 && (fds[idx].revents & (POLLIN | POLLHUP | POLLERR));
    };
    if (ready(idx_out)) drain(pipes.out[0], r.stdout_text);
    if (ready(idx_err)) drain(pipes.err[0], r.stderr_text);
    if (ready(idx_status)) read_available(pipes.status[0], status_text, 4096);
    if (idx_in >= 0 && (fds[idx_in].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t put =
          write(pipes.in[1], spec.stdin_data.data() + written, spec.stdin_data.size() - written);
      if (put > 0) written += static_cast<size_t>(put);
      if ((put < 0 && errno != EAGAIN && errno != EINTR) || written == spec.stdin_data.size())
        close(pipes.in[1]), pipes.in[1] = -1;
    }
    if (ready(idx_pid)) exited = true;  // the run is over: what is written is in the pipes
  }
  if (timed_out) kill(-pid, SIGKILL);
  // What the main process wrote before it exited; a background child still holding a pipe (only
  // without the sandbox: under it, everything died with the PID namespace) is not waited for.
  for (int* fd : {&pipes.out[0], &pipes.err[0]})
    if (*fd >= 0) drain(*fd, fd == &pipes.out[0] ? r.stdout_text : r.stderr_text);
  struct rusage ru {};
  int status = wait_child(pid, &ru);
  if (pipes.status[0] >= 0) read_available(pipes.status[0], status_text, 4096);
  kill(-pid, SIGKILL);  // leftovers in the process group (without the sandbox)
  pipes.close_all();
  if (pidfd >= 0) close(pidfd);
  if (child.sandboxed) wait_sandbox_gone(status_child_pid(status_text));
  r.max_rss_kb = ru.ru_maxrss;
  r.wall_ms = ms_since(t0);
  finish(r, child.sandboxed, status, timed_out, status_text, spec.limits.memory_bytes);
  if (timed_out && interrupted()) r.error = "interrupted by " + interrupt_name(interrupt_signal());
  return r;
}

}  // namespace

SandboxResult run_sandboxed(const SandboxSpec& spec) {
  return run_with(spec, Mode::kAuto);
}

SandboxResult run_trusted(const SandboxSpec& spec) {
  return run_with(spec, Mode::kTrusted);
}

}  // namespace convfail::exec
