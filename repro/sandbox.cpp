#include "repro/sandbox.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>

extern char** environ;

namespace convfail::repro {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

constexpr unsigned kNobody = 65534;  // the sandbox's uid and gid

std::atomic<bool> g_unsandboxed{false};

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

std::string find_program(const std::string& name, const std::string& path) {
  if (name.find('/') != std::string::npos) return name;
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

std::string find_program(const std::string& name, const std::map<std::string, std::string>& env) {
  auto it = env.find("PATH");
  const char* own = std::getenv("PATH");
  return find_program(name, it != env.end() ? it->second : own ? own : "");
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

int pidfd_open(int pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

struct Pipes {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, status[2] = {-1, -1};
  void close_all() {
    for (int* p : {in, out, err, status})
      for (int i = 0; i < 2; ++i)
        if (p[i] >= 0) close(p[i]), p[i] = -1;
  }
};

// ---- the seccomp filter ----
//
// Modelled on Flatpak's and Docker's default profiles. bwrap applies the filter to the final child
// only, after its own setup. Names unknown to this architecture (or to this libseccomp) are
// skipped. System calls of another ABI (i386, x32) kill the process (libseccomp's default for a
// foreign architecture). tests/e2e/repro_sandbox_seccomp.sh checks the whole table from inside.

// Refused with EPERM, whatever their arguments.
const char* const kDeniedSyscalls[] = {
    // Mounts, namespaces, other processes' memory.
    "mount",
    "umount",
    "umount2",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "move_mount",
    "open_tree",
    "mount_setattr",
    "pivot_root",
    "chroot",
    "setns",
    "unshare",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    // Kernel keyrings, BPF, perf, userfaultfd: kernel attack surface a script never needs.
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    // The machine itself.
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "swapon",
    "swapoff",
    "reboot",
    "open_by_handle_at",
    "name_to_handle_at",
    "acct",
    "quotactl",
    "syslog",
    "iopl",
    "ioperm",
    "lookup_dcookie",
    "vhangup",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "sethostname",
    "setdomainname",
    // x86 segment descriptors (old exploits' favourite; Docker refuses it).
    "modify_ldt",
    // NUMA memory policy and page migration (Docker: only with CAP_SYS_NICE).
    "move_pages",
    "mbind",
    "get_mempolicy",
    "set_mempolicy",
    "set_mempolicy_home_node",
    "migrate_pages",
};

// Refused with ENOSYS, as if the kernel lacked them, so that callers take their fallback path:
// io_uring (a large attack surface that bypasses per-call filtering; libuv and others fall back
// to epoll/threads) and clone3 (its flags sit in memory a filter cannot read; glibc falls back to
// clone, whose flags the rules below check).
const char* const kAbsentSyscalls[] = {
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "clone3",
};

// A refusal that depends on one argument: `syscall` fails with `error` when
// `compare` holds (one comparison per rule: libseccomp takes one per argument).
struct ArgumentRule {
  const char* syscall;
  int error;
  scmp_arg_cmp compare;
};

// The conditional refusals: new namespaces through clone, personality flags, socket families,
// terminal injection through ioctl.
std::vector<ArgumentRule> argument_rules() {
  std::vector<ArgumentRule> rules;
  // clone with any CLONE_NEW* flag (x86_64, arm64, ...: the flags are argument 0). The kernel
  // reads the low 32 bits; every flag is one bit there.
  for (std::uint64_t flag : {CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
                             CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET})
    rules.push_back({"clone", EPERM, SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag)});

  // personality: only PER_LINUX (0) and the query 0xffffffff, as in Flatpak's profile; flags
  // such as READ_IMPLIES_EXEC or ADDR_NO_RANDOMIZE weaken the process's own protections. The
  // kernel reads an unsigned int: anything above 32 bits is refused outright. Below that, a value
  // is 0 or all ones exactly when every bit equals bit 0, so a rule per bit i refuses bit 0 and
  // bit i differing (one comparison per rule allows no "x != 0 && x != ~0").
  rules.push_back({"personality", EPERM, SCMP_A0(SCMP_CMP_GT, 0xffffffffULL)});
  for (int i = 1; i < 32; ++i) {
    std::uint64_t pair = 1ULL | (1ULL << i);
    rules.push_back({"personality", EPERM, SCMP_A0(SCMP_CMP_MASKED_EQ, pair, 1ULL)});
    rules.push_back({"personality", EPERM, SCMP_A0(SCMP_CMP_MASKED_EQ, pair, 1ULL << i)});
  }

  // socket: only AF_UNIX (1), AF_INET (2), AF_INET6 (10) and AF_NETLINK (16) (the sandbox's own
  // network namespace); every other family (AF_VSOCK, AF_PACKET, AF_ALG, AF_BLUETOOTH, ...) is
  // EAFNOSUPPORT, as from a kernel built without it. Above 16 (and any value with high bits set)
  // in one rule, the gaps below one by one.
  rules.push_back({"socket", EAFNOSUPPORT, SCMP_A0(SCMP_CMP_GT, 16)});
  for (std::uint64_t family : {0, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15})
    rules.push_back({"socket", EAFNOSUPPORT, SCMP_A0(SCMP_CMP_EQ, family)});

  // ioctl TIOCSTI (push characters into a terminal's input: CVE-2017-5226) and TIOCLINUX (copy
  // and paste on a Linux console: CVE-2023-28100), so that a terminal handed to a child later
  // stays safe. The kernel reads the request as an unsigned int: compare its low 32 bits only,
  // so high bits cannot smuggle it past (CVE-2019-10063).
  for (std::uint64_t request : {TIOCSTI, TIOCLINUX})
    rules.push_back({"ioctl", EPERM, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffULL, request)});
  return rules;
}

// Adds one rule; false with *error naming the system call.
bool add_rule(scmp_filter_ctx ctx, const char* name, int error, unsigned count,
              const scmp_arg_cmp* compare, std::string* error_text) {
  int nr = seccomp_syscall_resolve_name(name);
  if (nr == __NR_SCMP_ERROR) return true;  // not on this architecture
  int rc = count ? seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(error), nr, count, compare)
                 : seccomp_rule_add(ctx, SCMP_ACT_ERRNO(error), nr, 0);
  if (rc < 0) *error_text = std::string("seccomp rule for ") + name + ": " + std::strerror(-rc);
  return rc >= 0;
}

// The filter as BPF (seccomp_export_bpf), or "" with *error.
std::string build_seccomp_bpf(std::string* error) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) {
    *error = "seccomp_init failed";
    return "";
  }
  std::string bpf;
  // A binary tree of syscall numbers rather than a list: fewer comparisons per system call.
  seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
  bool ok = true;
  for (const char* name : kDeniedSyscalls) ok = ok && add_rule(ctx, name, EPERM, 0, nullptr, error);
  for (const char* name : kAbsentSyscalls)
    ok = ok && add_rule(ctx, name, ENOSYS, 0, nullptr, error);
  for (const ArgumentRule& r : argument_rules())
    ok = ok && add_rule(ctx, r.syscall, r.error, 1, &r.compare, error);
  if (!ok) {
    seccomp_release(ctx);
    return "";
  }
  int fd = static_cast<int>(syscall(SYS_memfd_create, "convfail-seccomp", MFD_CLOEXEC));
  if (fd < 0) {
    *error = std::string("memfd_create: ") + std::strerror(errno);
  } else if (int rc = seccomp_export_bpf(ctx, fd); rc < 0) {
    *error = std::string("seccomp_export_bpf: ") + std::strerror(-rc);
  } else {
    off_t size = lseek(fd, 0, SEEK_END);
    bpf.resize(size > 0 ? static_cast<size_t>(size) : 0);
    if (size <= 0 || pread(fd, bpf.data(), bpf.size(), 0) != size) {
      *error = "seccomp filter could not be read back";
      bpf.clear();
    }
  }
  if (fd >= 0) close(fd);
  seccomp_release(ctx);
  return bpf;
}

// A memfd holding `data`, positioned at 0 (bwrap reads --seccomp FD to its end).
int memfd_with(const std::string& data, std::string* error) {
  int fd = static_cast<int>(syscall(SYS_memfd_create, "convfail-seccomp", MFD_CLOEXEC));
  if (fd < 0 || pwrite(fd, data.data(), data.size(), 0) != static_cast<ssize_t>(data.size())) {
    *error = std::string("seccomp memfd: ") + std::strerror(errno);
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

// ---- bubblewrap ----

struct SandboxConfig {
  bool probed = false, available = false;
  std::string reason;  // why not available
  std::string bwrap;   // absolute path
  std::string bpf;     // the seccomp filter
  bool disable_userns = true;
};

SandboxConfig& config() {
  static SandboxConfig c;
  return c;
}

std::mutex& config_mutex() {
  static std::mutex mu;
  return mu;
}

bool under_system_dir(const std::string& path) {
  for (const char* d : {"/usr/", "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/"})
    if (path.rfind(d, 0) == 0) return true;
  return false;
}

// bwrap arguments for the system part of the file system: /usr and the top-level links or
// directories into it, the loader's cache and configuration, /etc/alternatives (the targets of
// /usr/bin/python3 and friends on Debian), Python's site configuration; fresh /tmp, /dev, /proc.
std::vector<std::string> system_args() {
  std::vector<std::string> a;
  for (const char* d : {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
    std::error_code ec;
    auto st = fs::symlink_status(d, ec);
    if (ec || !fs::exists(st)) continue;
    if (fs::is_symlink(st)) {
      a.insert(a.end(), {"--symlink", fs::read_symlink(d, ec).string(), d});
    } else if (fs::is_directory(st)) {
      a.insert(a.end(), {"--ro-bind", d, d});
    }
  }
  std::vector<std::string> etc = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                                  "/etc/alternatives", "/etc/localtime"};
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/etc", ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("python3", 0) == 0) etc.push_back(e.path().string());
  }
  std::sort(etc.begin(), etc.end());
  for (const auto& p : etc) a.insert(a.end(), {"--ro-bind-try", p, p});
  a.insert(a.end(), {"--tmpfs", "/tmp", "--dev", "/dev", "--proc", "/proc"});
  return a;
}

// Everything decided before fork: the child only makes system calls on it.
struct Prepared {
  std::string program;
  std::vector<std::string> argv, env;
  bool sandboxed = false;
  bool drop_to_nobody = false;  // root: setresuid(65534) before exec'ing bwrap
  // Root only: bind sources that the child, still root, opens (O_PATH) in a private mount
  // namespace and bind-mounts at /tmp/<i> (a tmpfs of its own) before it drops to 65534, so
  // bwrap (running as 65534) reaches them whatever the permissions of their parent directories.
  std::vector<std::string> stage_sources, stage_paths;
  std::vector<bool> stage_is_dir;
  mutable std::vector<int> stage_fds;         // filled in the child
  mutable std::vector<std::string> fd_links;  // "/proc/self/fd/NNNNNNNN", patched in the child
  int seccomp_fd = -1;
  std::string cwd;  // unsandboxed only: the host working directory
  SandboxLimits limits;

  Prepared() = default;
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;
  ~Prepared() {
    if (seccomp_fd >= 0) close(seccomp_fd);
  }
};

// Tasks (threads included) whose real uid is `uid`, on the whole host: what RLIMIT_NPROC counts.
std::uint64_t tasks_of(uid_t uid) {
  std::uint64_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    FILE* f = std::fopen((e.path() / "status").c_str(), "r");
    if (!f) continue;
    char line[256];
    bool mine = false;
    while (std::fgets(line, sizeof line, f)) {
      unsigned real = 0;
      unsigned long threads = 0;
      if (std::sscanf(line, "Uid: %u", &real) == 1) mine = real == uid;
      if (mine && std::sscanf(line, "Threads: %lu", &threads) == 1) n += threads;
    }
    std::fclose(f);
  }
  return n;
}

size_t depth(const std::string& path) {
  return static_cast<size_t>(std::count(path.begin(), path.end(), '/'));
}

// kTrusted: never sandboxed (run_trusted: npm, which needs the network).
enum class Mode { kAuto, kForceSandbox, kTrusted };

// Fills `p` for `spec`; false with *error when the run cannot start.
bool prepare(const SandboxSpec& spec, Mode mode, Prepared& p, std::string* error) {
  if (spec.argv.empty()) {
    *error = "empty command";
    return false;
  }
  auto env = effective_env(spec);
  for (const auto& [k, v] : env) p.env.push_back(k + "=" + v);
  std::string program = find_program(spec.argv[0], env);
  if (program.empty()) {
    *error = "program not found: " + spec.argv[0];
    return false;
  }
  p.limits = spec.limits;
  if ((mode == Mode::kAuto && unsandboxed()) || mode == Mode::kTrusted) {
    p.program = program;
    p.argv = spec.argv;
    p.cwd = spec.cwd;
    return true;
  }
  SandboxConfig cfg;
  if (mode == Mode::kAuto) {
    std::string reason;
    if (!sandbox_available(&reason)) {
      *error = sandbox_refusal();
      return false;
    }
    std::lock_guard<std::mutex> lock(config_mutex());
    cfg = config();
  } else {
    cfg = config();  // the probe holds the lock
  }
  p.sandboxed = true;
  p.program = cfg.bwrap;
  p.drop_to_nobody = geteuid() == 0;
  // RLIMIT_NPROC counts every task of the uid on the host: the limit is what this run may start
  // on top of those that exist (convfail's own, when it is not root; other nobody processes).
  if (p.limits.max_processes > 0)
    p.limits.max_processes += tasks_of(p.drop_to_nobody ? kNobody : getuid());

  struct Bind {
    std::string path;
    bool writable;
  };
  std::vector<Bind> binds;
  auto absolute = [](const std::string& path) {
    return fs::absolute(path).lexically_normal().string();
  };
  if (!spec.limits.writable_dir.empty()) {
    std::string dir = absolute(spec.limits.writable_dir);
    if (!fs::is_directory(dir)) {
      *error = "sandbox: writable directory not found: " + dir;
      return false;
    }
    std::error_code ec;
    if (depth(dir) < 2 || fs::equivalent(dir, fs::temp_directory_path(ec), ec) ||
        under_system_dir(dir + "/")) {
      *error = "sandbox: refusing " + dir + " as the writable directory (not a scratch folder)";
      return false;
    }
    binds.push_back({dir, true});
    if (p.drop_to_nobody) {  // hand it (and what convfail put in it) to the sandbox's uid
      lchown(dir.c_str(), kNobody, kNobody);
      for (auto it = fs::recursive_directory_iterator(dir, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        lchown(it->path().c_str(), kNobody, kNobody);
    }
  }
  for (const auto& path : spec.read_only_paths) {
    std::string abs = absolute(path);
    std::error_code ec;
    if (!fs::exists(abs, ec)) {
      *error = "sandbox: read-only path not found: " + abs;
      return false;
    }
    binds.push_back({abs, false});
  }
  if (!under_system_dir(program)) binds.push_back({absolute(program), false});
  std::stable_sort(binds.begin(), binds.end(),
                   [](const Bind& a, const Bind& b) { return depth(a.path) < depth(b.path); });

  p.argv = {cfg.bwrap,
            "--unshare-all",
            "--unshare-user",
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
            "--uid",
            std::to_string(kNobody),
            "--gid",
            std::to_string(kNobody),
            "--hostname",
            "sandbox"};
  if (cfg.disable_userns) p.argv.push_back("--disable-userns");
  auto sys = system_args();
  p.argv.insert(p.argv.end(), sys.begin(), sys.end());
  for (const auto& b : binds) {
    std::string source = b.path;
    if (p.drop_to_nobody) {
      std::error_code ec;
      source = "/tmp/" + std::to_string(p.stage_sources.size());
      p.stage_sources.push_back(b.path);
      p.stage_paths.push_back(source);
      p.stage_is_dir.push_back(fs::is_directory(b.path, ec));
    }
    p.argv.insert(p.argv.end(), {b.writable ? "--bind" : "--ro-bind", source, b.path});
  }
  p.stage_fds.assign(p.stage_sources.size(), -1);
  p.fd_links.assign(p.stage_sources.size(), std::string("/proc/self/fd/") + std::string(12, '\0'));
  std::string cwd = !spec.cwd.empty()                   ? absolute(spec.cwd)
                    : !spec.limits.writable_dir.empty() ? absolute(spec.limits.writable_dir)
                                                        : "/";
  p.seccomp_fd = memfd_with(cfg.bpf, error);
  if (p.seccomp_fd < 0) return false;
  // In the child: fd 3 = the seccomp filter, fd 4 = bwrap's JSON status.
  // The root (bwrap's tmpfs holding the mount points) read-only too: only writable_dir, /tmp and
  // /dev/shm (the sandbox's own) take writes.
  p.argv.insert(p.argv.end(), {"--remount-ro", "/", "--chdir", cwd, "--seccomp", "3",
                               "--json-status-fd", "4", "--", program});
  p.argv.insert(p.argv.end(), spec.argv.begin() + 1, spec.argv.end());
  return true;
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

struct Spawned {
  int pid = -1;
  bool sandboxed = false;
};

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
    if (left_ms <= 0) {
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
  return r;
}

}  // namespace

SandboxResult run_sandboxed(const SandboxSpec& spec) {
  return run_with(spec, Mode::kAuto);
}

SandboxResult run_trusted(const SandboxSpec& spec) {
  return run_with(spec, Mode::kTrusted);
}

// ---- PersistentChild ----

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

std::map<std::string, std::string> python_child_env(const std::string& home, const std::string& tmp,
                                                    const std::string& torch_home) {
  const std::string nowhere = "http://127.0.0.1:9";
  return {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
          {"HOME", home},
          {"TMPDIR", tmp},
          {"LANG", "C.UTF-8"},
          {"PYTHONDONTWRITEBYTECODE", "1"},
          {"PYTHONNOUSERSITE", "1"},
          {"PYTHONHASHSEED", "0"},
          {"OMP_NUM_THREADS", "1"},
          {"MKL_NUM_THREADS", "1"},
          {"TORCH_HOME", torch_home},
          {"http_proxy", nowhere},
          {"https_proxy", nowhere},
          {"HTTP_PROXY", nowhere},
          {"HTTPS_PROXY", nowhere},
          {"ALL_PROXY", nowhere},
          {"no_proxy", ""}};
}

}  // namespace convfail::repro
