// The harness under the sandbox with the real /usr/bin/python3 + torch (skipped when absent).
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "repro/scripts/script_repro.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::repro;
using namespace convfail::exec;
namespace fs = std::filesystem;

namespace {

bool have_torch() {
  static int have = -1;
  if (have < 0) {
    exec::SandboxSpec spec;
    spec.argv = {"/usr/bin/python3", "-c", "import torch, onnx"};
    spec.limits.memory_bytes = 8ull << 30;
    spec.limits.wall_seconds = 120;
    have = fs::exists("/usr/bin/python3") && exec::run_sandboxed(spec).ok() ? 1 : 0;
  }
  return have == 1;
}

std::string test_script(const std::string& name) {
  std::ifstream in(convfail::test::source_dir() + "/tests/data/torch_scripts/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("scripts sandbox: a clean export reaches the evaluator with inputs and eager outputs") {
  if (!have_torch()) {
    MESSAGE("skipped: /usr/bin/python3 has no torch");
    return;
  }
  ScriptRunOptions options;
  options.timeout_seconds = 120;
  std::string scratch_seen;
  int calls = 0;
  auto result = reproduce_script(test_script("export_ok.py"), options, [&](const HarnessExport& x) {
    ++calls;
    CHECK(x.comparable());
    CHECK(fs::file_size(x.model_path) > 0);
    REQUIRE(x.inputs.size() == 1);
    REQUIRE(x.eager_outputs.size() == 1);
    CHECK(fs::exists(x.inputs[0]));
    CHECK(fs::exists(x.eager_outputs[0]));
    CHECK(x.opset == 13);
    scratch_seen = fs::path(x.model_path).parent_path().parent_path().parent_path().string();
    RunVerdict m;
    m.verdict = "not_reproduced";
    return m;
  });
  CHECK(calls == 1);
  CHECK(result.ran);
  CHECK(result.verdict.verdict == "not_reproduced");
  CHECK(result.script.torch_version.rfind("1.", 0) == 0);
  CHECK(result.script.sha256.size() == 64);
  // The scratch directory (script, working directory, exported files) is deleted afterwards.
  REQUIRE_FALSE(scratch_seen.empty());
  CHECK_FALSE(fs::exists(scratch_seen));
}

TEST_CASE("scripts sandbox: without the harness's guard the sandbox alone keeps the host away") {
  if (!have_torch()) {
    MESSAGE("skipped: /usr/bin/python3 has no torch");
    return;
  }
  REQUIRE(exec::sandbox_available());
  // A listener on the host's loopback: the script's connection must never arrive.
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  REQUIRE(listener >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  REQUIRE(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(listen(listener, 4) == 0);
  REQUIRE(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  std::string port = std::to_string(ntohs(addr.sin_port));

  ScriptRunOptions options;
  options.guard = false;  // only the sandbox stands between the script and the host
  options.timeout_seconds = 120;
  ScriptRun run = run_script(
      "import socket, torch\n"
      "open('/tmp/from-script', 'w').write('x')\n"  // the sandbox's own /tmp: allowed, vanishes
      "socket.create_connection(('127.0.0.1', " +
          port +
          "), timeout=5)\n"
          "torch.onnx.export(torch.nn.Linear(2, 2), torch.randn(1, 2), 'm.onnx')\n",
      options);
  int accepted = accept(listener, nullptr, nullptr);
  close(listener);
  CHECK(accepted < 0);  // nothing arrived at the host's listener
  if (accepted >= 0) close(accepted);
  REQUIRE(run.have_result);
  CHECK(run.isolation == exec::kIsolationSandbox);
  CHECK(run.network_isolated);
  CHECK(run.filesystem_isolated);
  CHECK(run.blocked.empty());
  REQUIRE(run.exception);
  CHECK(run.exception->frame == "before_export");
  CHECK(run.exception->type == "ConnectionRefusedError");  // the sandbox's own loopback
  CHECK(run.export_calls == 0);
  CHECK_FALSE(fs::exists("/tmp/from-script"));
}

TEST_CASE("scripts sandbox: a hung script is killed at the timeout and is not runnable") {
  if (!have_torch()) {
    MESSAGE("skipped: /usr/bin/python3 has no torch");
    return;
  }
  ScriptRunOptions options;
  options.timeout_seconds = 20;
  auto result = reproduce_script(test_script("loops_forever.py"), options,
                                 [](const HarnessExport&) { return RunVerdict{}; });
  CHECK(result.verdict.verdict == "not_runnable");
  CHECK(result.verdict.reason == "timeout in script");
  CHECK(result.verdict.details["wall_ms"].get<double>() < 40000);
}
