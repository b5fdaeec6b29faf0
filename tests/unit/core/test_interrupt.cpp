// core/interrupt: a caught SIGINT, SIGTERM or SIGHUP is a flag (the first one wins), not a death;
// a signal ignored at start (nohup) stays ignored. Each case runs in a child process, so the
// test binary keeps its own signal dispositions.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

#include "core/interrupt.h"

using namespace convfail;

namespace {

// The exit code of `body` run in a forked child (-1: it died of a signal).
int in_child(const std::function<int()>& body) {
  pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("interrupt: the first caught signal is kept, the process lives on") {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    CAPTURE(sig);
    CHECK(in_child([sig] {
            signal(SIGINT, SIG_DFL), signal(SIGTERM, SIG_DFL), signal(SIGHUP, SIG_DFL);
            if (interrupted()) return 1;
            catch_interrupts();
            catch_interrupts();  // idempotent
            raise(sig);
            raise(sig == SIGTERM ? SIGHUP : SIGTERM);  // a second one changes nothing
            return interrupt_signal() == sig ? 0 : 2;
          }) == 0);
  }
  CHECK(interrupt_name(SIGINT) == "SIGINT");
  CHECK(Interrupted(SIGINT, "x").exit_code() == 130);
  CHECK(Interrupted(SIGTERM, "x").exit_code() == 143);
}

TEST_CASE("interrupt: without catch_interrupts, or when ignored at start, nothing changes") {
  CHECK(in_child([] {
          signal(SIGTERM, SIG_DFL);
          raise(SIGTERM);
          return 0;
        }) == -1);  // the default action: no handler unless asked
  CHECK(in_child([] {
          signal(SIGHUP, SIG_IGN);  // nohup
          catch_interrupts();
          raise(SIGHUP);
          return interrupted() ? 1 : 0;
        }) == 0);
}
