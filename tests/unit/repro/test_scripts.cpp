// Script extraction, static checks and verdict decisions of the PyTorch repro flow (no Python
// needed: the harness's report is built by hand here; tests/e2e/torch_*.sh run the real thing).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "repro/scripts/script_extract.h"
#include "repro/scripts/script_verdict.h"
#include "repro/verdict_store.h"
#include "test_helpers.h"

namespace fs = std::filesystem;

using namespace convfail;
using namespace convfail::repro;
using namespace convfail::exec;

TEST_CASE("scripts: fenced blocks with language, tildes and an unclosed fence") {
  std::string md =
      "text\n```python\nimport torch\nx = 1\n```\nmore\n~~~\ny = 2\n~~~\n````py title=a\nz = 3\n"
      "```\nstill inside\n````\n```\nunclosed = True\n";
  auto blocks = markdown_code_blocks(md);
  REQUIRE(blocks.size() == 4);
  CHECK(blocks[0].language == "python");
  CHECK(blocks[0].code == "import torch\nx = 1\n");
  CHECK(blocks[1].language == "");
  CHECK(blocks[1].code == "y = 2\n");
  CHECK(blocks[2].language == "py");
  CHECK(blocks[2].code == "z = 3\n```\nstill inside\n");
  CHECK(blocks[3].code == "unclosed = True\n");
}

TEST_CASE("scripts: tracebacks, shell sessions and environment dumps are not Python") {
  CHECK(looks_like_python({"python", "import torch\nm = torch.nn.ReLU()\n"}));
  CHECK_FALSE(looks_like_python({"", "Traceback (most recent call last):\n  x\nValueError: y\n"}));
  CHECK_FALSE(looks_like_python({"", "  File \"a.py\", line 3, in <module>\n    f()\n"}));
  CHECK_FALSE(looks_like_python({"bash", "pip install torch\n"}));
  CHECK_FALSE(looks_like_python({"", "PyTorch version: 1.9\nIs debug build: No\n"}));
  CHECK_FALSE(looks_like_python({"", "RuntimeError: shape mismatch\n"}));
  CHECK_FALSE(looks_like_python({"", "tensor([0.5000, 1.0000])\n"}));
  CHECK_FALSE(looks_like_python({"", "UserWarning: x is deprecated, use torch.y\n"}));
  CHECK(looks_like_python({"", "ValueError = 3\n"}));
  // A block pasted from inside a function is dedented.
  CHECK(python_source({"", "    x = 1\n    if x:\n        y = 2\n"}) ==
        "x = 1\nif x:\n    y = 2\n");
  CHECK(looks_like_python({"python", "print(out)\n"}));
  CHECK(looks_like_python({"", ">>> import torch\n>>> torch.zeros(1)\ntensor([0.])\n"}));
  CHECK(python_source({"", ">>> import torch\n>>> for i in range(2):\n...     print(i)\n0\n1\n"}) ==
        "import torch\nfor i in range(2):\n    print(i)\n");
}

TEST_CASE("scripts: body blocks first, else the reporter's comments, joined in order") {
  IssueText issue;
  issue.author = "alice";
  issue.body = "no code here";
  issue.comments = {
      {"bob", "```python\nimport bob_code\n```"},
      {"alice", "```python\nimport torch\n```\n```\nTraceback (most recent call last):\n```"},
      {"alice", "```python\ntorch.onnx.export(m, x, 'm.onnx')\n```"}};
  auto s = extract_script(issue);
  CHECK(s.source == "comments");
  CHECK(s.blocks == 2);
  CHECK(s.code == "import torch\ntorch.onnx.export(m, x, 'm.onnx')\n");

  issue.body = "```python\nimport torch\n```\ntext\n```python\nprint(1)\n```";
  s = extract_script(issue);
  CHECK(s.source == "body");
  CHECK(s.code == "import torch\nprint(1)\n");

  issue.body.clear();
  issue.author.clear();  // unknown reporter: comments are not used
  CHECK(extract_script(issue).code.empty());
}

TEST_CASE("scripts: imported modules and export calls") {
  auto mods = imported_modules(
      "import torch, numpy as np\nfrom torch.onnx import export\n  import onnxruntime.capi  # x\n"
      "from . import local\nfrom .pkg import y\nimport torch\nfrom torchvision.models import "
      "resnet18\n");
  CHECK(mods == std::vector<std::string>{"torch", "numpy", "onnxruntime", "torchvision"});

  CHECK(has_export_call("torch.onnx.export(model, x, 'a.onnx')"));
  CHECK(has_export_call("torch.onnx.utils.export(model, x, f)"));
  CHECK(has_export_call("torch.onnx._export(model, x, f)"));
  CHECK(has_export_call("from torch.onnx import export\nexport(model, x, f)"));
  CHECK_FALSE(has_export_call("export(model, x, f)"));  // not known to be torch.onnx's
  CHECK_FALSE(has_export_call("torch.jit.trace(model, x).save('m.pt')"));
  CHECK_FALSE(has_export_call("from torch.onnx import export\nmodel.export_weights()"));
}

TEST_CASE("scripts: static checks name the missing module or the missing export") {
  auto none_missing = [](const std::vector<std::string>&) { return std::vector<std::string>{}; };
  auto lacks_ort = [](const std::vector<std::string>& mods) {
    std::vector<std::string> out;
    for (const auto& m : mods)
      if (m == "onnxruntime") out.push_back(m);
    return out;
  };
  CHECK(static_check("  \n", none_missing)->reason == "no code");
  auto v = static_check("import torch\nimport onnxruntime as ort\ntorch.onnx.export(m, x, f)\n",
                        lacks_ort);
  REQUIRE(v);
  CHECK(v->verdict == "not_runnable");
  CHECK(v->reason == "missing module: onnxruntime");
  CHECK(static_check("import torch\nprint(torch.zeros(1))\n", none_missing)->reason ==
        "no export call");
  CHECK_FALSE(static_check("import torch\ntorch.onnx.export(m, x, f)\n", none_missing));
}

namespace {

ScriptRun finished_run() {
  ScriptRun run;
  run.sandbox.kind = exec::ExitKind::kExited;
  run.sandbox.exit_code = 0;
  run.have_result = true;
  run.phase = "done";
  run.torch_version = "1.13.1";
  return run;
}

HarnessExport comparable_export() {
  HarnessExport x;
  x.model_path = "/nowhere/model.onnx";
  x.inputs = {"/nowhere/input_0.pb"};
  x.eager_outputs = {"/nowhere/output_0.pb"};
  x.inputs_match_graph = x.outputs_match_graph = true;
  return x;
}

ModelEvaluator fixed(const std::string& verdict, std::optional<double> err = std::nullopt) {
  return [verdict, err](const HarnessExport&) {
    RunVerdict m;
    m.verdict = verdict;
    m.step = verdict == "crash_reproduced" ? "session" : "compare";
    m.max_abs_error = err;
    m.ort_version = "9.9.9";
    return m;
  };
}

}  // namespace

TEST_CASE("scripts: an export exception is a reproduced crash with a normalised signature") {
  ScriptRun run = finished_run();
  run.export_calls = 1;
  run.exception = HarnessException{"UnsupportedOperatorError",
                                   "Exporting the operator 'aten::fft_fft' to ONNX opset version "
                                   "13 is not supported. See /usr/lib/x.py",
                                   "export",
                                   "",
                                   "",
                                   0,
                                   "",
                                   ""};
  int calls = 0;
  auto v = decide_script_verdict(run, [&](const HarnessExport&) {
    ++calls;
    return RunVerdict{};
  });
  CHECK(v.verdict == "crash_reproduced");
  CHECK(v.step == "export");
  CHECK(v.signature ==
        "unsupportedoperatorerror: exporting the operator 'aten::fft_fft' to onnx opset version n "
        "is not supported. see <path>");
  CHECK(calls == 0);
  CHECK(v.details["torch_version"] == "1.13.1");

  // The script caught the exception itself: the export record still says it raised.
  ScriptRun caught = finished_run();
  caught.export_calls = 1;
  HarnessExport x;
  x.error = HarnessException{"RuntimeError", "boom 12", "export", "", "", 0, "", ""};
  caught.exports = {x};
  auto w = decide_script_verdict(caught, fixed("not_reproduced"));
  CHECK(w.verdict == "crash_reproduced");
  CHECK(w.signature == "runtimeerror: boom n");
}

TEST_CASE("scripts: exported models decide: wrong output, crash, agreement") {
  ScriptRun run = finished_run();
  run.export_calls = 2;
  run.exports = {comparable_export(), comparable_export()};
  run.exports[1].index = 1;

  auto wrong = decide_script_verdict(run, fixed("wrong_output_reproduced", 3.5));
  CHECK(wrong.verdict == "wrong_output_reproduced");
  CHECK(*wrong.max_abs_error == doctest::Approx(3.5));
  CHECK(wrong.ort_version == "9.9.9");
  CHECK(wrong.details["models"].size() == 2);

  int n = 0;
  auto mixed = decide_script_verdict(run, [&](const HarnessExport&) {
    return fixed(n++ == 0 ? "wrong_output_reproduced" : "crash_reproduced", 1.0)(HarnessExport{});
  });
  CHECK(mixed.verdict == "crash_reproduced");  // a crash outranks a wrong output
  CHECK(mixed.step == "session");

  auto same = decide_script_verdict(run, fixed("not_reproduced"));
  CHECK(same.verdict == "not_reproduced");
  CHECK(same.details["comparable_exports"] == 2);

  // An error in the script after the export does not change what the models say.
  run.exception = HarnessException{"AssertionError", "", "after_export", "", "", 0, "", ""};
  CHECK(decide_script_verdict(run, fixed("not_reproduced")).verdict == "not_reproduced");
}

TEST_CASE("scripts: scripts that cannot get to a model are not runnable, with the reason") {
  ScriptRun none = finished_run();
  CHECK(decide_script_verdict(none, fixed("not_reproduced")).reason == "no export call");

  ScriptRun syntax = finished_run();
  syntax.exception = HarnessException{"SyntaxError", "invalid syntax", "syntax", "", "", 7, "", ""};
  CHECK(decide_script_verdict(syntax, fixed("x")).reason == "syntax error (line 7)");

  ScriptRun missing = finished_run();
  missing.exception = HarnessException{
      "ModuleNotFoundError", "No module named 'tv'", "before_export", "tv", "", 0, "", ""};
  CHECK(decide_script_verdict(missing, fixed("x")).reason == "missing module: tv");

  ScriptRun blocked = finished_run();
  blocked.exception =
      HarnessException{"PermissionError", "blocked", "before_export", "", "", 0, "", ""};
  blocked.blocked = {"write outside working directory: ../x.txt"};
  CHECK(decide_script_verdict(blocked, fixed("x")).reason ==
        "blocked: write outside working directory");

  ScriptRun hung = finished_run();
  hung.have_result = false;
  hung.sandbox.kind = exec::ExitKind::kTimeout;
  hung.phase = "script";
  auto t = decide_script_verdict(hung, fixed("x"));
  CHECK(t.verdict == "not_runnable");
  CHECK(t.reason == "timeout in script");

  // Hanging or dying inside torch.onnx.export is the converter's failure.
  hung.phase = "export";
  auto h = decide_script_verdict(hung, fixed("x"));
  CHECK(h.verdict == "crash_reproduced");
  CHECK(h.step == "export");
  CHECK(h.signature == "timeout");

  ScriptRun eager = finished_run();
  eager.export_calls = 1;
  HarnessExport x = comparable_export();
  x.eager_error = HarnessException{"RuntimeError", "bad", "eager", "", "", 0, "", ""};
  eager.exports = {x};
  auto e = decide_script_verdict(eager, fixed("not_reproduced"));
  CHECK(e.verdict == "not_runnable");
  CHECK(e.reason == "eager run failed: RuntimeError");
  // ... but a model that crashes in ONNX Runtime is still a reproduced crash.
  CHECK(decide_script_verdict(eager, fixed("crash_reproduced")).verdict == "crash_reproduced");
}

TEST_CASE("scripts: a stubbed module needed before the export is still a missing module") {
  ScriptRun run = finished_run();
  run.exception = HarnessException{"StubbedModuleError",
                                   "onnxruntime.InferenceSession is not installed here (...)",
                                   "before_export",
                                   "",
                                   "",
                                   0,
                                   "",
                                   ""};
  CHECK(decide_script_verdict(run, fixed("x")).reason ==
        "missing module: onnxruntime.InferenceSession");
  // After the export it is the script's own comparison: the exported model decides.
  run.exception->frame = "after_export";
  run.export_calls = 1;
  run.exports = {comparable_export()};
  CHECK(decide_script_verdict(run, fixed("wrong_output_reproduced", 1)).verdict ==
        "wrong_output_reproduced");
}

TEST_CASE("scripts: stored text is cut, escaped and has no token") {
  const std::string token = "ghp_" + std::string(36, 'a');
  const std::string pat = "github_pat_" + std::string(30, 'B') + "_" + std::string(20, 'c');
  CHECK(stored_text("key " + token + " end", 100) == "key <token> end");
  CHECK(stored_text("pat=" + pat, 100) == "pat=<token>");
  CHECK(stored_text("gho_short", 100) == "gho_short");  // too short to be a token
  CHECK(stored_text("a\x1b[2Jb\nc", 100) == "a\\x1b[2Jb\\nc");
  // A token across the cut is still removed (scrubbed before cutting).
  std::string cut = stored_text(std::string(10, 'x') + token, 20);
  CHECK(cut.find("ghp_") == std::string::npos);
  CHECK(cut == std::string(10, 'x') + "<token>");              // fits once scrubbed
  CHECK(stored_text("\xc3\xa9\xc3\xa9", 3) == "\xc3\xa9...");  // not inside a UTF-8 sequence

  // Every string of a decision, details included, goes through it.
  ScriptRun run = finished_run();
  run.exception = HarnessException{
      "RuntimeError", "token " + token + "\x07", "before_export", "", "", 0, "", ""};
  run.blocked = {"write outside working directory: /root/" + token};
  auto v = decide_script_verdict(run, fixed("not_reproduced"));
  std::string all = v.details.dump() + v.signature + v.reason;
  CHECK(all.find(token) == std::string::npos);
  CHECK(v.details["exception"]["message"] == "token <token>\\x07");
}

TEST_CASE("scripts: result.json cannot point outside the output directory") {
  convfail::test::TempDir dir;
  fs::create_directories(dir.path() / "export_0");
  dir.write("export_0/model.onnx", "m");
  dir.write("export_0/input_0.pb", "i");
  fs::create_symlink("/etc/passwd", dir.path() / "export_0" / "output_0.pb");
  fs::create_symlink("/etc", dir.path() / "linkdir");
  auto parse = [&](const std::string& model, const std::string& input, const std::string& out) {
    ScriptRun run;
    parse_harness_result(nlohmann::json::parse(R"({"exports": [{"index": 0, "model": ")" + model +
                                               R"(", "inputs": [")" + input +
                                               R"("], "eager_outputs": [")" + out + R"("]}]})"),
                         dir.path().string(), &run);
    REQUIRE(run.exports.size() == 1);
    return run.exports[0];
  };
  auto ok = parse("export_0/model.onnx", "export_0/input_0.pb", "export_0/output_0.pb");
  CHECK(ok.model_path == (dir.path() / "export_0" / "model.onnx").string());
  CHECK(ok.inputs.size() == 1);
  CHECK(ok.eager_outputs.empty());  // a symbolic link to /etc/passwd is not read
  CHECK(parse("/etc/passwd", "x", "x").model_path.empty());
  CHECK(parse("../../etc/passwd", "x", "x").model_path.empty());
  CHECK(parse("linkdir/passwd", "x", "x").model_path.empty());
  CHECK(parse("export_0/../export_0/model.onnx", "../x", "x").inputs.empty());
}

TEST_CASE("scripts: the exception's own words and traceback reach the verdict, cut and escaped") {
  const std::string token = "ghp_" + std::string(36, 'z');
  nlohmann::json result = {
      {"exception",
       {{"type", "NameError"},
        {"message", "name 'foo' is not defined\nsecond line \x1b[31mred " + token},
        {"frame", "before_export"},
        {"traceback",
         "Traceback (most recent call last):\n  File \"repro_script.py\", line 3, "
         "in <module>\n    foo()\x07\n" +
             std::string(9000, 'x')}}}};
  convfail::test::TempDir dir;
  ScriptRun run = finished_run();
  parse_harness_result(result, dir.path().string(), &run);
  REQUIRE(run.exception);
  CHECK(run.exception->text ==
        "NameError: name 'foo' is not defined\nsecond line \\x1b[31mred <token>");
  CHECK(run.exception->traceback.rfind("Traceback (most recent call last):\n  File "
                                       "\"repro_script.py\", line 3, in <module>\n    foo()\\x07\n",
                                       0) == 0);
  CHECK(run.exception->traceback.size() <= kMaxTracebackBytes + 16);  // cut, then escaped
  auto v = decide_script_verdict(run, fixed("not_reproduced"));
  CHECK(v.reason == "script failed before export: NameError");
  CHECK(v.signature.find("nameerror: name '<name>' is not defined") == 0);  // for grouping
  CHECK(v.message == run.exception->text);                                  // for people
  CHECK(v.traceback == run.exception->traceback);

  // A traceback of the header alone (no frame outside the harness) is no traceback.
  result["exception"]["traceback"] = "Traceback (most recent call last):";
  ScriptRun bare = finished_run();
  parse_harness_result(result, dir.path().string(), &bare);
  CHECK(bare.exception->traceback.empty());

  // An exported model that crashes: its runtime's message, no traceback.
  ScriptRun exported = finished_run();
  exported.export_calls = 1;
  exported.exports = {comparable_export()};
  auto crash = decide_script_verdict(exported, [](const HarnessExport&) {
    RunVerdict m;
    m.verdict = "crash_reproduced";
    m.step = "session";
    m.signature = "[onnxruntimeerror] : n : fail : dimension n";
    m.message = "[ONNXRuntimeError] : 1 : FAIL : dimension 0: (0) vs (1)";
    return m;
  });
  CHECK(crash.verdict == "crash_reproduced");
  CHECK(crash.message == "[ONNXRuntimeError] : 1 : FAIL : dimension 0: (0) vs (1)");
  CHECK(crash.traceback.empty());

  // The harness died: its last words on stderr are the message.
  ScriptRun died;
  died.sandbox.kind = exec::ExitKind::kSignaled;
  died.sandbox.signal = 11;
  died.sandbox.stderr_text = "noise\nFatal Python error: Segmentation fault\n\nCurrent thread:\n";
  died.phase = "script";
  auto d = decide_script_verdict(died, fixed("x"));
  CHECK(d.verdict == "not_runnable");
  CHECK(d.message.find("Fatal Python error: Segmentation fault") != std::string::npos);
}
