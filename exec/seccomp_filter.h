// The sandbox's seccomp filter, modelled on Flatpak's and Docker's default profiles: the system
// calls refused with EPERM whatever their arguments, those refused on some arguments (clone with a
// CLONE_NEW* flag, personality, ioctl TIOCSTI/TIOCLINUX, socket families), io_uring and clone3
// with ENOSYS. Compiled once by libseccomp to BPF that bwrap applies to the final child only
// (--seccomp FD). tests/e2e/repro_sandbox_seccomp.sh checks the whole table from inside.
#pragma once

#include <string>

namespace convfail::exec::detail {

// The filter as BPF bytes; "" with *error when libseccomp fails.
std::string build_seccomp_bpf(std::string* error);

// A memfd holding `data`, positioned at 0 (bwrap reads --seccomp FD to its end); -1 with *error.
int memfd_with(const std::string& data, std::string* error);

}  // namespace convfail::exec::detail
