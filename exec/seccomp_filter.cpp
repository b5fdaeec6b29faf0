#include "exec/seccomp_filter.h"

#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace convfail::exec::detail {
namespace {

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

}  // namespace

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

}  // namespace convfail::exec::detail
