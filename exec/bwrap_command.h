// The bubblewrap command line of one child (internal to exec/): the namespaces, uid 65534, no
// capabilities, the system directories read-only, the spec's read-only paths and its one writable
// scratch directory, the seccomp filter's descriptor; or, unsandboxed, the program itself. Decided
// before fork, so that the child only makes system calls on it (child_process).
#pragma once

#include <unistd.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "exec/sandbox.h"

namespace convfail::exec::detail {

constexpr unsigned kNobody = 65534;  // the sandbox's uid and gid

// kTrusted: never sandboxed (run_trusted: npm, which needs the network). kForceSandbox: the probe.
enum class Mode { kAuto, kForceSandbox, kTrusted };

// What the probe found (sandbox_available), shared by every run.
struct SandboxConfig {
  bool probed = false, available = false;
  std::string reason;  // why not available
  std::string bwrap;   // absolute path
  std::string bpf;     // the seccomp filter
  bool disable_userns = true;
};

SandboxConfig& config();
std::mutex& config_mutex();

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

// Fills `p` for `spec`; false with *error when the run cannot start.
bool prepare(const SandboxSpec& spec, Mode mode, Prepared& p, std::string* error);

// `name` looked up in `path` (a name with a slash is returned as is); "" when not found.
std::string find_program(const std::string& name, const std::string& path);

}  // namespace convfail::exec::detail
