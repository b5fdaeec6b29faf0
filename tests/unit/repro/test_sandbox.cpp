// Isolation: children that segfault, hang, flood memory or keep fds open never hurt convfail.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "repro/sandbox.h"
#include "test_helpers.h"

using namespace convfail::repro;

namespace {
SandboxSpec shell(const std::string& script, double wall = 10) {
  SandboxSpec s;
  s.argv = {"sh", "-c", script};
  s.limits.wall_seconds = wall;
  return s;
}
}  // namespace

TEST_CASE("sandbox: exit code, stdout, stdin and environment") {
  auto spec = shell("read x; echo \"got $x $FOO\"; echo err >&2; exit 3");
  spec.stdin_data = "hello\n";
  spec.env = {{"PATH", "/usr/bin:/bin"}, {"FOO", "bar"}};
  auto r = run_sandboxed(spec);
  CHECK(r.kind == ExitKind::kExited);
  CHECK(r.exit_code == 3);
  CHECK(r.stdout_text == "got hello bar\n");
  CHECK(r.stderr_text == "err\n");
  CHECK(r.describe() == "exit 3");
}

TEST_CASE("sandbox: controlled environment does not leak the parent's variables") {
  setenv("CONVFAIL_SECRET_FOR_TEST", "leak", 1);
  auto r = run_sandboxed(shell("echo \"[$CONVFAIL_SECRET_FOR_TEST]\""));
  CHECK(r.stdout_text == "[]\n");
  unsetenv("CONVFAIL_SECRET_FOR_TEST");
}

TEST_CASE("sandbox: a segfaulting child is a signal result") {
  auto r = run_sandboxed(shell("kill -SEGV $$"));
  CHECK(r.kind == ExitKind::kSignaled);
  CHECK(r.signal == SIGSEGV);
  CHECK(r.describe() == "signal SIGSEGV");
}

TEST_CASE("sandbox: a hanging child and its grandchildren are killed at the timeout") {
  auto r = run_sandboxed(shell("sleep 30 & sleep 30; echo never", 0.5));
  CHECK(r.kind == ExitKind::kTimeout);
  CHECK(r.wall_ms < 5000);
  CHECK(r.stdout_text.empty());
}

TEST_CASE("sandbox: a memory flood hits the address-space limit") {
  SandboxSpec s;
  s.argv = {"python3", "-c", "l=[]\nwhile True: l.append(bytearray(10**7))"};
  s.limits.memory_bytes = 256ull << 20;
  s.limits.wall_seconds = 20;
  auto r = run_sandboxed(s);
  CHECK(r.kind == ExitKind::kMemoryExhausted);
  CHECK(r.describe() == "memory exhausted");
}

TEST_CASE("sandbox: CPU limit stops a busy loop") {
  auto s = shell("while :; do :; done", 20);
  s.limits.cpu_seconds = 1;
  auto r = run_sandboxed(s);
  CHECK(r.kind == ExitKind::kSignaled);
  CHECK((r.signal == SIGXCPU || r.signal == SIGKILL));
}

TEST_CASE("sandbox: file-size limit") {
  convfail::test::TempDir dir;
  auto s = shell("exec head -c 3000000 /dev/zero > big");
  s.cwd = dir.path().string();
  s.limits.file_size_bytes = 1 << 20;
  auto r = run_sandboxed(s);
  CHECK(r.kind == ExitKind::kSignaled);
  CHECK(r.signal == SIGXFSZ);
  CHECK(std::filesystem::file_size(dir.file("big")) <= (1u << 20));
}

TEST_CASE("sandbox: no descriptors are inherited beyond the pipes; working dir is set") {
  convfail::test::TempDir dir;
  int fd = open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  REQUIRE(fd > 2);
  auto s = shell("pwd; ls /proc/$$/fd | tr '\\n' ' '");
  s.cwd = dir.path().string();
  auto r = run_sandboxed(s);
  close(fd);
  REQUIRE(r.ok());
  auto nl = r.stdout_text.find('\n');
  CHECK(std::filesystem::equivalent(r.stdout_text.substr(0, nl), dir.path()));
  CHECK(r.stdout_text.substr(nl + 1) == "0 1 2 ");
}

TEST_CASE("sandbox: missing program is a spawn failure, not an exception") {
  SandboxSpec s;
  s.argv = {"convfail-no-such-program"};
  auto r = run_sandboxed(s);
  CHECK(r.kind == ExitKind::kSpawnFailed);
  CHECK(r.describe().find("program not found") != std::string::npos);
}

TEST_CASE("sandbox: output beyond the cap is dropped") {
  auto s = shell("head -c 100000 /dev/zero");
  s.max_output_bytes = 1000;
  auto r = run_sandboxed(s);
  CHECK(r.ok());
  CHECK(r.stdout_text.size() == 1000);
  CHECK(r.output_truncated);
}

TEST_CASE("sandbox: no network when isolation is available") {
  if (!network_isolation_available()) return;  // documented: unshare -n needs privileges
  auto s = shell("cat /proc/net/dev | wc -l");
  s.limits.no_network = true;
  auto r = run_sandboxed(s);
  REQUIRE(r.ok());
  CHECK(std::stoi(r.stdout_text) == 3);  // two header lines + lo only
}

TEST_CASE("persistent child: answers, dies, is restarted, times out") {
  SandboxSpec s;
  s.argv = {"sh", "-c",
            "while read l; do case $l in crash) kill -SEGV $$;; hang) sleep 30;; "
            "*) echo \"re:$l\";; esac; done"};
  s.limits.wall_seconds = 5;
  PersistentChild child(s);
  auto a = child.request("one");
  REQUIRE(a.line);
  CHECK(*a.line == "re:one");
  CHECK(*child.request("two").line == "re:two");
  CHECK(child.starts() == 1);

  auto c = child.request("crash");
  CHECK_FALSE(c.line);
  CHECK(c.failure.kind == ExitKind::kSignaled);
  CHECK(c.failure.signal == SIGSEGV);
  CHECK_FALSE(child.running());

  auto d = child.request("three");
  REQUIRE(d.line);
  CHECK(*d.line == "re:three");
  CHECK(child.starts() == 2);

  auto h = child.request("hang", 0.3);
  CHECK_FALSE(h.line);
  CHECK(h.failure.kind == ExitKind::kTimeout);
  CHECK(*child.request("four").line == "re:four");
  CHECK(child.starts() == 3);
}

TEST_CASE("sandbox: read-only file system but for the writable directory, when available") {
  if (!filesystem_isolation_available()) return;  // documented: unshare -m needs root
  convfail::test::TempDir inside, outside;
  auto s =
      shell("touch \"$0/written\" && echo ok; touch \"$1/escaped\" 2>/dev/null || echo blocked");
  s.argv.push_back(inside.path().string());
  s.argv.push_back(outside.path().string());
  s.limits.writable_dir = inside.path().string();
  s.limits.no_network = true;  // both wrappers together
  auto r = run_sandboxed(s);
  REQUIRE(r.ok());
  CHECK(r.stdout_text == "ok\nblocked\n");
  CHECK(std::filesystem::exists(inside.path() / "written"));
  CHECK_FALSE(std::filesystem::exists(outside.path() / "escaped"));
  // Without writable_dir the same child writes anywhere: the guard is the limit, not the test.
  auto free = shell("touch \"$0/escaped\"");
  free.argv.push_back(outside.path().string());
  REQUIRE(run_sandboxed(free).ok());
  CHECK(std::filesystem::exists(outside.path() / "escaped"));
}
