// The harness under the sandbox with the real /usr/bin/python3 + torch (skipped when absent).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "repro/scripts/script_repro.h"
#include "test_helpers.h"

using namespace convfail::repro;
namespace fs = std::filesystem;

namespace {

bool have_torch() {
  static int have = -1;
  if (have < 0) {
    SandboxSpec spec;
    spec.argv = {"/usr/bin/python3", "-c", "import torch, onnx"};
    spec.limits.memory_bytes = 8ull << 30;
    spec.limits.wall_seconds = 120;
    have = fs::exists("/usr/bin/python3") && run_sandboxed(spec).ok() ? 1 : 0;
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
    ModelOutcome m;
    m.verdict = "not_reproduced";
    return m;
  });
  CHECK(calls == 1);
  CHECK(result.ran);
  CHECK(result.verdict.verdict == "not_reproduced");
  CHECK(result.torch_version.rfind("1.", 0) == 0);
  CHECK(result.script_sha256.size() == 64);
  // The scratch directory (script, working directory, exported files) is deleted afterwards.
  REQUIRE_FALSE(scratch_seen.empty());
  CHECK_FALSE(fs::exists(scratch_seen));
}

TEST_CASE("scripts sandbox: without the harness's guard the sandbox alone has no network") {
  if (!have_torch()) {
    MESSAGE("skipped: /usr/bin/python3 has no torch");
    return;
  }
  if (!network_isolation_available()) {
    MESSAGE("skipped: unshare -n is not available here");
    return;
  }
  ScriptRunOptions options;
  options.guard = false;  // only `unshare -n` stands between the script and the network
  ScriptRun run = run_script(test_script("network.py"), options);
  REQUIRE(run.have_result);
  CHECK(run.network_isolated);
  CHECK(run.blocked.empty());
  REQUIRE(run.exception);
  CHECK(run.exception->frame == "before_export");
  CHECK(run.exception->type == "OSError");  // loopback is down in a fresh network namespace
  CHECK(run.export_calls == 0);
}

TEST_CASE("scripts sandbox: a hung script is killed at the timeout and is not runnable") {
  if (!have_torch()) {
    MESSAGE("skipped: /usr/bin/python3 has no torch");
    return;
  }
  ScriptRunOptions options;
  options.timeout_seconds = 20;
  auto result = reproduce_script(test_script("loops_forever.py"), options,
                                 [](const HarnessExport&) { return ModelOutcome{}; });
  CHECK(result.verdict.verdict == "not_runnable");
  CHECK(result.verdict.reason == "timeout in script");
  CHECK(result.verdict.details["wall_ms"].get<double>() < 40000);
}
