#include "exec/bwrap_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "exec/seccomp_filter.h"

namespace convfail::exec::detail {

namespace fs = std::filesystem;

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

namespace {

std::map<std::string, std::string> effective_env(const SandboxSpec& spec) {
  if (!spec.env.empty()) return spec.env;
  std::map<std::string, std::string> env;
  for (const char* name : {"PATH", "HOME", "LANG", "TMPDIR"})
    if (const char* v = std::getenv(name)) env[name] = v;
  if (!env.count("PATH")) env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  return env;
}

std::string find_program_in_env(const std::string& name,
                                const std::map<std::string, std::string>& env) {
  auto it = env.find("PATH");
  const char* own = std::getenv("PATH");
  return find_program(name, it != env.end() ? it->second : own ? own : "");
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

}  // namespace

SandboxConfig& config() {
  static SandboxConfig c;
  return c;
}

std::mutex& config_mutex() {
  static std::mutex mu;
  return mu;
}

namespace {

struct Bind {
  std::string path;
  bool writable;
};

std::string absolute(const std::string& path) {
  return fs::absolute(path).lexically_normal().string();
}

// The paths the sandbox sees of the host: the writable scratch folder (handed to nobody when
// convfail is root), the read-only paths and a program outside the system folders; shallowest
// first (bwrap mounts in order). False with *error when one is missing or not a scratch folder.
bool sandbox_binds(const SandboxSpec& spec, const std::string& program, bool drop_to_nobody,
                   std::vector<Bind>& binds, std::string* error) {
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
    if (drop_to_nobody) {  // hand it (and what convfail put in it) to the sandbox's uid
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
  return true;
}

// bwrap's arguments up to the binds: every namespace, no capability, nobody, the system folders.
void namespace_args(const SandboxConfig& cfg, Prepared& p) {
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
}

// One --bind or --ro-bind per path; as root each source is staged under /tmp (opened by the
// child before it drops to nobody, so nobody never needs to reach the host path).
void bind_args(const std::vector<Bind>& binds, Prepared& p) {
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
}

}  // namespace

// Fills `p` for `spec`; false with *error when the run cannot start.
bool prepare(const SandboxSpec& spec, Mode mode, Prepared& p, std::string* error) {
  if (spec.argv.empty()) {
    *error = "empty command";
    return false;
  }
  auto env = effective_env(spec);
  for (const auto& [k, v] : env) p.env.push_back(k + "=" + v);
  std::string program = find_program_in_env(spec.argv[0], env);
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

  std::vector<Bind> binds;
  if (!sandbox_binds(spec, program, p.drop_to_nobody, binds, error)) return false;
  namespace_args(cfg, p);
  bind_args(binds, p);
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

}  // namespace convfail::exec::detail
