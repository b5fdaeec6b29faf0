// Runs untrusted programs (ONNX Runtime runner, repro scripts) in a child process under
// bubblewrap (`bwrap`): new user, PID, network, IPC, UTS, cgroup and mount namespaces, no network
// at all, uid/gid 65534 inside (and outside too when convfail runs as root: the child drops to
// 65534 before starting bwrap, so RLIMIT_NPROC counts and host files are seen as nobody's), all
// capabilities dropped, no nested user namespaces, a seccomp filter (libseccomp, modelled on
// Flatpak's and Docker's) refusing mount, setns, unshare, ptrace, keyctl, bpf, module loading,
// modify_ldt, NUMA policy calls and the like with EPERM, io_uring and clone3 with ENOSYS (callers
// fall back), clone with a CLONE_NEW* flag, personality other than PER_LINUX or the query, ioctl
// TIOCSTI/TIOCLINUX with EPERM, and socket families other than AF_UNIX, AF_INET, AF_INET6 and
// AF_NETLINK with EAFNOSUPPORT (tests/e2e/repro_sandbox_seccomp.sh checks the table). The file
// system is the system directories read-only (/usr, /lib*, /bin, the loader's and Python's files in
// /etc), SandboxSpec::read_only_paths read-only, SandboxLimits::writable_dir (the scratch
// directory, the only writable place), a fresh /tmp, /dev (with /dev/shm) and /proc; nothing else
// of the host. Limits: address space, CPU time, file size, processes (RLIMIT_*), a wall-clock
// timeout; the run ends when its main process does and everything it started dies with it (PID
// namespace). No descriptor beyond the pipes and no variable beyond SandboxSpec::env reaches the
// child. When bwrap cannot create its namespaces here, runs are refused (kSpawnFailed with
// sandbox_refusal()) unless set_unsandboxed(true) (`--unsafe-no-sandbox`): then children run with
// the rlimits only, and SandboxResult::isolation says so.
// A child that segfaults, aborts, hangs or exhausts memory is a result, never an exception.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace convfail::exec {

struct SandboxLimits {
  std::uint64_t memory_bytes = 4ull << 30;       // RLIMIT_AS; 0 = unlimited
  std::uint64_t cpu_seconds = 120;               // RLIMIT_CPU; 0 = unlimited
  std::uint64_t file_size_bytes = 512ull << 20;  // RLIMIT_FSIZE; 0 = unlimited
  double wall_seconds = 60;                      // run(): whole run; PersistentChild: per request
  // The only writable place, visible at the same path (must exist). When convfail runs as root
  // it is handed to uid 65534 (chown of the directory and everything in it) before each start.
  std::string writable_dir;
  // Processes (threads count too) the run may start: RLIMIT_NPROC is set to this plus the tasks
  // its uid already has on the host (0 = unlimited). When convfail runs as root the sandbox's uid
  // is 65534 on the host as well, so the limit holds (root is exempt from RLIMIT_NPROC).
  std::uint64_t max_processes = 256;
};

struct SandboxSpec {
  // argv[0] is looked up in PATH (from env, else convfail's own) on the host; when it lies outside
  // the system directories it is bound read-only too.
  std::vector<std::string> argv;
  // The child's complete environment. When empty, PATH, HOME, LANG and TMPDIR are copied from
  // convfail's environment (nothing else, so no token leaks into a script).
  std::map<std::string, std::string> env;
  // Working directory, a path visible inside (writable_dir, a read-only path or a system
  // directory); empty = writable_dir, else /. Without the sandbox: empty = convfail's.
  std::string cwd;
  std::string stdin_data;                  // run(): written to the child's stdin, then closed
  std::size_t max_output_bytes = 4 << 20;  // per stream; the rest is read and dropped
  // Host files and directories the child may read, visible read-only at the same path inside the
  // sandbox (the model under test, a harness script; must exist). System directories needed to
  // run programs (/usr, /lib*, /bin, /etc's loader and Python config) are always bound read-only;
  // nothing else of the host is visible. limits.writable_dir is the only writable place. When
  // convfail runs as root, the child reads as uid 65534: a path must be readable by it (its
  // parent directories need not be).
  std::vector<std::string> read_only_paths;
  SandboxLimits limits;
};

inline constexpr const char* kIsolationSandbox = "bwrap+seccomp";
inline constexpr const char* kIsolationNone = "none (--unsafe-no-sandbox)";

enum class ExitKind {
  kExited,           // exit_code is valid
  kSignaled,         // signal is valid (SIGSEGV, SIGABRT, SIGKILL, SIGXCPU, ...)
  kTimeout,          // wall-clock timeout; the process group was killed
  kMemoryExhausted,  // hit the address-space limit (allocation failure reported by the child)
  kSpawnFailed,      // could not start (program not found, sandbox setup failed or refused)
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
  // The isolation that applied: kIsolationSandbox or kIsolationNone; empty when nothing started.
  std::string isolation;

  bool ok() const { return kind == ExitKind::kExited && exit_code == 0; }
  // "exit 3", "signal SIGSEGV", "timeout after 2.0 s", "memory exhausted", "spawn failed: ...".
  std::string describe() const;
};

// Runs the child until its main process exits (or the timeout) and collects its output. Under the
// sandbox a child killed by signal N is reported as kSignaled when bwrap's exit status is 128+N
// for a fatal signal (SIGSEGV, SIGABRT, SIGKILL, SIGXCPU, ...).
SandboxResult run_sandboxed(const SandboxSpec& spec);

// Runs a program convfail trusts (npm installing a runtime, which needs the network) the same way
// but never under bwrap: the spec's environment, limits, timeout and output caps only.
SandboxResult run_trusted(const SandboxSpec& spec);

// Whether bwrap and the seccomp filter work here (probed once by running `true` in the full
// sandbox; $CONVFAIL_BWRAP names the bwrap binary, else `bwrap` from PATH). *reason says why not.
bool sandbox_available(std::string* reason = nullptr);

// "sandbox unavailable: <reason>; pass --unsafe-no-sandbox to run without isolation".
std::string sandbox_refusal();

// Process-wide: true runs every child without the sandbox (rlimits only; `--unsafe-no-sandbox`).
void set_unsandboxed(bool unsandboxed);
bool unsandboxed();

// The isolation the next run will have: kIsolationSandbox, kIsolationNone, or "" when it would
// be refused (sandbox unavailable and not unsandboxed).
std::string current_isolation();

// "SIGSEGV" for 11, etc.
std::string signal_name(int sig);

}  // namespace convfail::exec
