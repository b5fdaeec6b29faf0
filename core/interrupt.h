// Ctrl-C, SIGTERM and SIGHUP as a flag that long jobs check between steps, instead of a death
// that leaves their temporary folders and sandboxed children behind. `catch_interrupts` installs
// one handler (once, process-wide) that only records the first signal in a sig_atomic_t; the job
// stops starting work, lets its destructors remove what it made, and the command exits 128+N
// (`Interrupted`, caught by main). Without catch_interrupts the signals keep their default action
// and `interrupted()` stays false, so code that checks it changes nothing for other commands.
#pragma once

#include <stdexcept>
#include <string>

namespace convfail {

// Installs the handler of SIGINT, SIGTERM and SIGHUP (no SA_RESTART: a blocking wait returns
// EINTR and its loop looks at the flag). A signal ignored when convfail started (nohup, a
// background job of a shell script) stays ignored. Idempotent.
void catch_interrupts();

// The first signal caught since catch_interrupts (SIGINT, SIGTERM, SIGHUP), 0 when none.
int interrupt_signal();
inline bool interrupted() {
  return interrupt_signal() != 0;
}

// "SIGINT", "SIGTERM", "SIGHUP" (else "signal N").
std::string interrupt_name(int sig);

// Tests only: sets the flag as the handler would (0 clears it).
void set_interrupt_for_tests(int sig);

// A job stopped by a caught signal: main prints what() as it is (no "error:") and exits
// 128 + signal (130 for Ctrl-C).
class Interrupted : public std::runtime_error {
 public:
  Interrupted(int sig, const std::string& what) : std::runtime_error(what), signal_(sig) {}
  int exit_code() const { return 128 + signal_; }

 private:
  int signal_;
};

}  // namespace convfail
