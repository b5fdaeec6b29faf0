// A long-lived sandboxed child (the campaign's torch worker, the ONNX Runtime runner, the libonnx
// checker) speaking one request line / one response line: started on the first request, restarted
// on the next request after it died or timed out.
#pragma once

#include <optional>
#include <string>

#include "exec/sandbox.h"

namespace convfail::exec {

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
  int in_fd_ = -1, out_fd_ = -1, err_fd_ = -1, status_fd_ = -1;
  bool sandboxed_ = false;
  std::string status_text_;  // bwrap's JSON status (child pid, exit code)
  std::string out_buf_;
  std::string stderr_tail_;
  int starts_ = 0;
};

}  // namespace convfail::exec
