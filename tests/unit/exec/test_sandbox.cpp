// Isolation: children that segfault, hang, flood memory or keep fds open never hurt convfail.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "exec/persistent_child.h"
#include "exec/python_child.h"
#include "exec/sandbox.h"
#include "test_helpers.h"

using namespace convfail;

namespace {
exec::SandboxSpec shell(const std::string& script, double wall = 10) {
  exec::SandboxSpec s;
  s.argv = {"sh", "-c", script};
  s.limits.wall_seconds = wall;
  return s;
}
}  // namespace

TEST_CASE("sandbox: exit code, stdout, stdin and environment") {
  auto spec = shell("read x; echo \"got $x $FOO\"; echo err >&2; exit 3");
  spec.stdin_data = "hello\n";
  spec.env = {{"PATH", "/usr/bin:/bin"}, {"FOO", "bar"}};
  auto r = exec::run_sandboxed(spec);
  CHECK(r.kind == exec::ExitKind::kExited);
  CHECK(r.exit_code == 3);
  CHECK(r.stdout_text == "got hello bar\n");
  CHECK(r.stderr_text == "err\n");
  CHECK(r.describe() == "exit 3");
}

TEST_CASE("sandbox: controlled environment does not leak the parent's variables") {
  setenv("CONVFAIL_SECRET_FOR_TEST", "leak", 1);
  auto r = exec::run_sandboxed(shell("echo \"[$CONVFAIL_SECRET_FOR_TEST]\""));
  CHECK(r.stdout_text == "[]\n");
  unsetenv("CONVFAIL_SECRET_FOR_TEST");
}

TEST_CASE("sandbox: a segfaulting child is a signal result") {
  auto r = exec::run_sandboxed(shell("kill -SEGV $$"));
  CHECK(r.kind == exec::ExitKind::kSignaled);
  CHECK(r.signal == SIGSEGV);
  CHECK(r.describe() == "signal SIGSEGV");
}

TEST_CASE("sandbox: a hanging child and its grandchildren are killed at the timeout") {
  auto r = exec::run_sandboxed(shell("sleep 30 & sleep 30; echo never", 0.5));
  CHECK(r.kind == exec::ExitKind::kTimeout);
  CHECK(r.wall_ms < 5000);
  CHECK(r.stdout_text.empty());
}

TEST_CASE("sandbox: a memory flood hits the address-space limit") {
  exec::SandboxSpec s;
  s.argv = {"/usr/bin/python3", "-c", "l=[]\nwhile True: l.append(bytearray(10**7))"};
  s.limits.memory_bytes = 256ull << 20;
  s.limits.wall_seconds = 20;
  auto r = exec::run_sandboxed(s);
  CHECK(r.kind == exec::ExitKind::kMemoryExhausted);
  CHECK(r.describe() == "memory exhausted");
}

TEST_CASE("sandbox: CPU limit stops a busy loop") {
  auto s = shell("while :; do :; done", 20);
  s.limits.cpu_seconds = 1;
  auto r = exec::run_sandboxed(s);
  CHECK(r.kind == exec::ExitKind::kSignaled);
  CHECK((r.signal == SIGXCPU || r.signal == SIGKILL));
}

TEST_CASE("sandbox: file-size limit") {
  convfail::test::TempDir dir;
  auto s = shell("exec head -c 3000000 /dev/zero > big");
  s.limits.writable_dir = dir.path().string();
  s.limits.file_size_bytes = 1 << 20;
  auto r = exec::run_sandboxed(s);
  CHECK(r.kind == exec::ExitKind::kSignaled);
  CHECK(r.signal == SIGXFSZ);
  CHECK(std::filesystem::file_size(dir.file("big")) <= (1u << 20));
}

TEST_CASE("sandbox: no descriptors are inherited beyond the pipes, working dir is set") {
  convfail::test::TempDir dir;
  int fd = open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  REQUIRE(fd > 2);
  // (stat, not ls: the lister's own descriptors or the shell's saved ones would be listed)
  auto s = shell(
      "pwd; exec /usr/bin/python3 -c \"import os; print(''.join('%d ' % f for f in range(256) if "
      "os.path.exists('/proc/self/fd/%d' % f)), end='')\"");
  s.limits.writable_dir = dir.path().string();
  auto r = exec::run_sandboxed(s);
  close(fd);
  REQUIRE(r.ok());
  auto nl = r.stdout_text.find('\n');
  CHECK(std::filesystem::equivalent(r.stdout_text.substr(0, nl), dir.path()));
  CHECK(r.stdout_text.substr(nl + 1) == "0 1 2 ");
}

TEST_CASE("sandbox: missing program is a spawn failure, not an exception") {
  exec::SandboxSpec s;
  s.argv = {"convfail-no-such-program"};
  auto r = exec::run_sandboxed(s);
  CHECK(r.kind == exec::ExitKind::kSpawnFailed);
  CHECK(r.describe().find("program not found") != std::string::npos);
}

TEST_CASE("sandbox: output beyond the cap is dropped") {
  auto s = shell("head -c 100000 /dev/zero");
  s.max_output_bytes = 1000;
  auto r = exec::run_sandboxed(s);
  CHECK(r.ok());
  CHECK(r.stdout_text.size() == 1000);
  CHECK(r.output_truncated);
}

TEST_CASE("sandbox: no network") {
  REQUIRE(exec::sandbox_available());
  auto r = exec::run_sandboxed(shell("cat /proc/net/dev | wc -l"));
  REQUIRE(r.ok());
  CHECK(std::stoi(r.stdout_text) == 3);  // two header lines + lo only
  CHECK(r.isolation == exec::kIsolationSandbox);
}

TEST_CASE("persistent child: answers, dies, is restarted, times out") {
  exec::SandboxSpec s;
  s.argv = {"sh", "-c",
            "while read l; do case $l in crash) kill -SEGV $$;; hang) sleep 30;; "
            "*) echo \"re:$l\";; esac; done"};
  s.limits.wall_seconds = 5;
  exec::PersistentChild child(s);
  auto a = child.request("one");
  REQUIRE(a.line);
  CHECK(*a.line == "re:one");
  CHECK(*child.request("two").line == "re:two");
  CHECK(child.starts() == 1);

  auto c = child.request("crash");
  CHECK_FALSE(c.line);
  CHECK(c.failure.kind == exec::ExitKind::kSignaled);
  CHECK(c.failure.signal == SIGSEGV);
  CHECK_FALSE(child.running());

  auto d = child.request("three");
  REQUIRE(d.line);
  CHECK(*d.line == "re:three");
  CHECK(child.starts() == 2);

  auto h = child.request("hang", 0.3);
  CHECK_FALSE(h.line);
  CHECK(h.failure.kind == exec::ExitKind::kTimeout);
  CHECK(*child.request("four").line == "re:four");
  CHECK(child.starts() == 3);
}

// ---- the bubblewrap sandbox: what the child sees of the host ----

namespace {

// Whether a process whose command line contains `marker` is alive on the host.
bool host_process_with(const std::string& marker) {
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline", std::ios::binary);
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    if (cmd.find(marker) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("sandbox: only the writable directory is writable, read-only paths are read-only") {
  REQUIRE(exec::sandbox_available());
  convfail::test::TempDir scratch, shared, hidden;
  std::filesystem::permissions(shared.path(), std::filesystem::perms(0755));
  std::string visible = shared.write("visible.txt", "for the child\n");
  std::string secret = hidden.write("secret.txt", "not for the child\n");
  auto s = shell(
      "touch \"$0/written\" && echo wrote;"
      "cat \"$1\";"
      "echo x >> \"$1\" 2>/dev/null || echo ro;"
      "touch \"$2/new\" 2>/dev/null || echo ro-dir;"
      "[ -e \"$3\" ] || echo no-hidden;"
      "for p in /root /home /run /var /etc/shadow /etc/passwd /work; do"
      "  [ -e \"$p\" ] && echo \"seen $p\"; done;"
      "touch /usr/x /etc/x / 2>/dev/null; echo done");
  s.argv.insert(s.argv.end(), {scratch.path().string(), visible, shared.path().string(), secret});
  s.limits.writable_dir = scratch.path().string();
  s.read_only_paths = {shared.path().string()};
  auto r = exec::run_sandboxed(s);
  REQUIRE(r.ok());
  CHECK(r.isolation == exec::kIsolationSandbox);
  CHECK(r.stdout_text == "wrote\nfor the child\nro\nro-dir\nno-hidden\ndone\n");
  CHECK(std::filesystem::exists(scratch.path() / "written"));
  CHECK_FALSE(std::filesystem::exists(shared.path() / "new"));
  std::ifstream in(visible);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(content == "for the child\n");
  CHECK_FALSE(std::filesystem::exists("/usr/x"));
  if (geteuid() == 0) {  // the child is nobody on the host too
    struct stat st {};
    REQUIRE(stat((scratch.path() / "written").c_str(), &st) == 0);
    CHECK(st.st_uid == 65534u);
  }
  // A read-only path that does not exist is a spawn failure naming it.
  auto missing = shell("true");
  missing.read_only_paths = {hidden.file("nope")};
  auto m = exec::run_sandboxed(missing);
  CHECK(m.kind == exec::ExitKind::kSpawnFailed);
  CHECK(m.error.find("nope") != std::string::npos);
}

TEST_CASE("sandbox: fresh /tmp, /dev/shm and /proc, nobody, no capabilities, seccomp refuses") {
  REQUIRE(exec::sandbox_available());
  std::string marker = "convfail-unit-" + std::to_string(getpid());
  auto s = shell(
      "echo > /tmp/$0 && echo > /dev/shm/$0 && echo files;"
      "id -u; id -g;"
      "grep CapEff /proc/self/status;"
      "ls /proc | grep -c '^[0-9]';"
      "unshare -U true 2>/dev/null || echo no-unshare;"
      "cat /proc/sys/kernel/hostname; echo x > /proc/sys/kernel/hostname 2>/dev/null || echo "
      "ro-proc;");
  s.argv.push_back(marker);
  auto r = exec::run_sandboxed(s);
  REQUIRE(r.ok());
  std::istringstream out(r.stdout_text);
  std::string files, uid, gid, cap, capv, procs, unshare_line, host, proc_line;
  out >> files >> uid >> gid >> cap >> capv >> procs >> unshare_line >> host >> proc_line;
  CHECK(files == "files");
  CHECK(uid == "65534");
  CHECK(gid == "65534");
  CHECK(capv == "0000000000000000");
  CHECK(std::stoi(procs) <= 4);  // bwrap's init, sh, ls, grep: no host process
  CHECK(unshare_line == "no-unshare");
  CHECK(host == "sandbox");
  CHECK(proc_line == "ro-proc");
  CHECK_FALSE(std::filesystem::exists("/tmp/" + marker));
  CHECK_FALSE(std::filesystem::exists("/dev/shm/" + marker));

  // The seccomp filter: mount, setns, ptrace, keyctl fail with EPERM (not ENOSYS, not a kill).
  exec::SandboxSpec py;
  py.argv = {
      "/usr/bin/python3", "-c",
      "import ctypes, os\n"
      "libc = ctypes.CDLL(None, use_errno=True)\n"
      "for name, call in [('mount', lambda: libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)),\n"
      "                   ('setns', lambda: libc.setns(0, 0)),\n"
      "                   ('ptrace', lambda: libc.ptrace(16, 1, 0, 0)),\n"
      "                   ('keyctl', lambda: libc.syscall(250, 0, 0, 0, 0, 0))]:\n"
      "    rc = call(); print(name, rc, os.strerror(ctypes.get_errno()))\n"};
  py.limits.wall_seconds = 20;
  auto p = exec::run_sandboxed(py);
  REQUIRE(p.ok());
  CHECK(p.stdout_text ==
        "mount -1 Operation not permitted\nsetns -1 Operation not permitted\n"
        "ptrace -1 Operation not permitted\nkeyctl -1 Operation not permitted\n");
}

TEST_CASE("sandbox: RLIMIT_NPROC bounds a fork bomb, nothing outlives the run") {
  REQUIRE(exec::sandbox_available());
  exec::SandboxSpec s;
  s.argv = {"/usr/bin/python3", "-c",
            "import os, time\n"
            "n = 0\n"
            "for i in range(300):\n"
            "    try:\n"
            "        if os.fork() == 0:\n"
            "            time.sleep(30); os._exit(0)\n"
            "        n += 1\n"
            "    except OSError:\n"
            "        break\n"
            "print(n)\n"};
  s.limits.max_processes = 40;
  s.limits.wall_seconds = 20;
  auto r = exec::run_sandboxed(s);
  REQUIRE(r.ok());
  int forked = std::stoi(r.stdout_text);
  CHECK(forked > 0);
  CHECK(forked < 100);       // 40 on top of the tasks nobody already had (the bomb tried 300)
  CHECK(r.wall_ms < 10000);  // the sleeping children did not keep the run alive

  // setsid + double fork: the grandchild is gone when exec::run_sandboxed returns, which is at
  // once.
  std::string marker = "59" + std::to_string(getpid() % 10000) + ".25";
  auto d = shell("setsid sh -c 'sleep " + marker +
                     " & exit 0' </dev/null >/dev/null 2>&1 & "
                     "sleep 0.3; echo started",
                 30);
  auto dr = exec::run_sandboxed(d);
  REQUIRE(dr.ok());
  CHECK(dr.stdout_text == "started\n");
  CHECK(dr.wall_ms < 10000);
  CHECK_FALSE(host_process_with("sleep " + marker));

  // A background child holding stdout does not hold the run either.
  auto b = shell("sleep 30 & echo main-done", 30);
  auto br = exec::run_sandboxed(b);
  REQUIRE(br.ok());
  CHECK(br.stdout_text == "main-done\n");
  CHECK(br.wall_ms < 10000);
}

TEST_CASE("sandbox: --unsafe-no-sandbox runs with rlimits only and says so") {
  convfail::test::TempDir outside;
  auto s = shell("touch \"$0/escaped\" && id -u");
  s.argv.push_back(outside.path().string());
  exec::set_unsandboxed(true);
  auto r = exec::run_sandboxed(s);
  exec::set_unsandboxed(false);
  REQUIRE(r.ok());
  CHECK(r.isolation == exec::kIsolationNone);
  CHECK(std::filesystem::exists(outside.path() / "escaped"));
  CHECK(r.stdout_text == std::to_string(geteuid()) + "\n");
  // The same under the sandbox: the host path is not there.
  auto sb = exec::run_sandboxed(s);
  CHECK_FALSE(sb.ok());
  CHECK(sb.isolation == exec::kIsolationSandbox);
  CHECK(exec::current_isolation() == exec::kIsolationSandbox);
  CHECK(exec::sandbox_refusal().find("pass --unsafe-no-sandbox") != std::string::npos);
}

TEST_CASE("persistent child: sandboxed, sees its read-only paths, leaves nothing behind") {
  REQUIRE(exec::sandbox_available());
  convfail::test::TempDir dir;
  std::filesystem::permissions(dir.path(), std::filesystem::perms(0755));
  std::string data = dir.write("data.txt", "payload");
  exec::SandboxSpec s;
  s.argv = {"sh", "-c", "while read l; do sleep 591.5 & cat \"$l\"; echo; done"};
  s.read_only_paths = {data};
  s.limits.wall_seconds = 5;
  {
    exec::PersistentChild child(s);
    auto a = child.request(data);
    REQUIRE(a.line);
    CHECK(*a.line == "payload");
    CHECK(host_process_with("sleep 591.5"));
  }
  CHECK_FALSE(host_process_with("sleep 591.5"));
}
