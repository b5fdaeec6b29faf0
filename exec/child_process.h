// Starting one child and collecting what it leaves (internal to exec/): fork, the child's side
// (its own process group, the staging of bind sources when root, rlimits, the drop to 65534,
// exec of bwrap or the program), the pipes, waiting and reading bwrap's status, and how a run
// ended (SandboxResult). Shared by run_sandboxed (sandbox.cpp) and PersistentChild.
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <string>

#include "exec/bwrap_command.h"
#include "exec/sandbox.h"

namespace convfail::exec::detail {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0);

int pidfd_open(int pid);

struct Pipes {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, status[2] = {-1, -1};
  void close_all() {
    for (int* p : {in, out, err, status})
      for (int i = 0; i < 2; ++i)
        if (p[i] >= 0) close(p[i]), p[i] = -1;
  }
};

struct Spawned {
  int pid = -1;
  bool sandboxed = false;
};

// Forks and execs; returns the pid (-1 with *error). The parent ends of the pipes stay in `pipes`
// (in[1], out[0], err[0], status[0]); the child ends are closed in the parent.
Spawned spawn(const SandboxSpec& spec, Mode mode, Pipes& pipes, std::string* error);

// Reads what is available on a non-blocking descriptor into `dst` (up to `cap` bytes kept);
// closes it at EOF.
void read_available(int& fd, std::string& dst, size_t cap);

// The host pid of the sandbox's init from bwrap's status ("child-pid"), or -1.
int status_child_pid(const std::string& status);

// After the outer bwrap was reaped: waits (up to 30 s) until the sandbox's init has exited too.
void wait_sandbox_gone(int init_pid);

void append_capped(std::string& dst, const char* data, size_t n, size_t cap, bool* truncated);
// Keeps the last `cap` bytes.
void append_tail(std::string& dst, const char* data, size_t n, size_t cap);

int wait_child(int pid, struct rusage* ru);

// The outcome of a run from the exit status (and, sandboxed, bwrap's JSON status).
void finish(SandboxResult& r, bool sandboxed, int status, bool timed_out,
            const std::string& status_text, std::uint64_t memory_limit);

}  // namespace convfail::exec::detail
