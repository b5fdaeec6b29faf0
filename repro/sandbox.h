// Runs untrusted programs (ONNX Runtime runner, repro scripts) in a child process with limits:
// address space (RLIMIT_AS), CPU time, file size, a wall-clock timeout that kills the whole
// process group, no inherited file descriptors beyond its pipes, an environment and working
// directory chosen by the caller, optionally no network (`unshare -n`) and a read-only file system
// but for one directory (`unshare -m`), each when it works here.
// A child that segfaults, aborts, hangs or exhausts memory is a result, never an exception.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace convfail::repro {

struct SandboxLimits {
  std::uint64_t memory_bytes = 4ull << 30;       // RLIMIT_AS; 0 = unlimited
  std::uint64_t cpu_seconds = 120;               // RLIMIT_CPU; 0 = unlimited
  std::uint64_t file_size_bytes = 512ull << 20;  // RLIMIT_FSIZE; 0 = unlimited
  double wall_seconds = 60;                      // run(): whole run; PersistentChild: per request
  bool no_network = false;                       // wrap in `unshare -n` when that works here
  // Non-empty: in a private mount namespace every mount is remounted read-only except this
  // directory (and /proc, /sys, /dev), when that works here (`unshare -m`, needs root).
  std::string writable_dir;
  // RLIMIT_NPROC inside the sandbox (0 = unlimited). Counted per uid: the sandbox runs as 65534.
  std::uint64_t max_processes = 256;
};

struct SandboxSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH (from env, else convfail's own)
  // The child's complete environment. When empty, PATH, HOME, LANG and TMPDIR are copied from
  // convfail's environment (nothing else, so no token leaks into a script).
  std::map<std::string, std::string> env;
  std::string cwd;                         // working directory; empty = convfail's
  std::string stdin_data;                  // run(): written to the child's stdin, then closed
  std::size_t max_output_bytes = 4 << 20;  // per stream; the rest is read and dropped
  // Host files and directories the child may read, visible read-only at the same path inside the
  // sandbox (the model under test, a harness script). System directories needed to run programs
  // (/usr, /lib*, /bin, /etc's loader and Python config) are always bound read-only; nothing else
  // of the host is visible. limits.writable_dir is the only writable place.
  std::vector<std::string> read_only_paths;
  SandboxLimits limits;
};

enum class ExitKind {
  kExited,           // exit_code is valid
  kSignaled,         // signal is valid (SIGSEGV, SIGABRT, SIGKILL, SIGXCPU, ...)
  kTimeout,          // wall-clock timeout; the process group was killed
  kMemoryExhausted,  // hit the address-space limit (allocation failure reported by the child)
  kSpawnFailed,      // could not start (program not found, fork failed); see error
};

struct SandboxResult {
  ExitKind kind = ExitKind::kSpawnFailed;
  int exit_code = -1;
  int signal = 0;
  std::string stdout_text;
  std::string stderr_text;
  bool output_truncated = false;
  double wall_ms = 0;
  std::int64_t max_rss_kb = 0;
  std::string error;  // for kSpawnFailed

  bool ok() const { return kind == ExitKind::kExited && exit_code == 0; }
  // "exit 3", "signal SIGSEGV", "timeout after 2.0 s", "memory exhausted", "spawn failed: ...".
  std::string describe() const;
};

// Runs the child to completion (or the timeout) and collects its output.
SandboxResult run_sandboxed(const SandboxSpec& spec);

// Runs `fn` in a forked copy of convfail (no exec) under `limits` (memory, CPU, wall clock) and
// returns what it wrote through `emit` in stdout_text: for in-process library code (libonnx
// checker, shape inference) that may crash on hostile input. `fn` must not use threads started
// before the fork. A throw in `fn` ends the child with exit 2 and the message in stderr_text.
SandboxResult run_in_fork(
    const std::function<void(const std::function<void(const std::string&)>& emit)>& fn,
    const SandboxLimits& limits);

// Whether `unshare -n` can be used on this machine (checked once).
bool network_isolation_available();

// Whether SandboxLimits::writable_dir can be enforced on this machine (checked once).
bool filesystem_isolation_available();

// "SIGSEGV" for 11, etc.
std::string signal_name(int sig);

// A long-lived child speaking one request line / one response line over stdin/stdout (stderr is
// kept as a bounded tail for diagnostics). Started on the first request and restarted on the next
// request after it died or timed out. RLIMIT_CPU applies to the child's whole life, the wall
// timeout to each request.
class PersistentChild {
 public:
  explicit PersistentChild(SandboxSpec spec);
  ~PersistentChild();
  PersistentChild(const PersistentChild&) = delete;
  PersistentChild& operator=(const PersistentChild&) = delete;

  struct Reply {
    std::optional<std::string> line;  // the response line (without '\n') when the child answered
    SandboxResult failure;            // when it did not: how the child died (or kTimeout)
  };
  // Sends `request` (must not contain '\n') and waits up to `timeout_seconds` (<= 0: the spec's
  // wall_seconds) for one line of response.
  Reply request(const std::string& request, double timeout_seconds = 0);

  bool running() const { return pid_ > 0; }
  int starts() const { return starts_; }  // how many times the child was (re)started
  void stop();                            // kill the child (closing stdin first, then SIGKILL)
  const std::string& stderr_tail() const { return stderr_tail_; }

 private:
  bool start(std::string* error);
  SandboxResult reap(bool timed_out, double waited_ms);

  SandboxSpec spec_;
  int pid_ = -1;
  int in_fd_ = -1, out_fd_ = -1, err_fd_ = -1;
  std::string out_buf_;
  std::string stderr_tail_;
  int starts_ = 0;
};

}  // namespace convfail::repro
