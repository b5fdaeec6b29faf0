#include "core/interrupt.h"

#include <signal.h>

#include <mutex>

namespace convfail {
namespace {

volatile sig_atomic_t g_signal = 0;

extern "C" void on_interrupt(int sig) {
  if (g_signal == 0) g_signal = sig;  // the first one says why the job stopped
}

}  // namespace

void catch_interrupts() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      // Ignored when convfail started (nohup, a background job of a script): stays ignored.
      struct sigaction old {};
      if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
      sigaction(sig, &sa, nullptr);
    }
  });
}

int interrupt_signal() {
  return g_signal;
}

std::string interrupt_name(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  if (sig == SIGHUP) return "SIGHUP";
  return "signal " + std::to_string(sig);
}

void set_interrupt_for_tests(int sig) {
  g_signal = sig;
}

}  // namespace convfail
