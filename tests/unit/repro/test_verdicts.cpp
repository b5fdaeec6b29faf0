// Verdict logic (structure checks, ORT errors, comparison, signatures) and the runner protocol.
#include <doctest/doctest.h>
#include <signal.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "exec/compare.h"
#include "exec/signature.h"
#include "repro/reproduce.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::repro;
using namespace convfail::exec;

namespace {

// y = op(a, b) over float[2].
onnx::ModelProto binary_model(const std::string& op, const std::string& domain = "") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* opset = m.add_opset_import();
  opset->set_version(13);
  if (!domain.empty()) {
    auto* d = m.add_opset_import();
    d->set_domain(domain);
    d->set_version(1);
  }
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_domain(domain);
  n->add_input("a");
  n->add_input("b");
  n->add_output("y");
  for (const char* name : {"a", "b"}) {
    auto* in = g->add_input();
    in->set_name(name);
    in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    in->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  }
  auto* out = g->add_output();
  out->set_name("y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  out->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  return m;
}

onnx::TensorProto proto(const std::string& name, std::vector<float> v) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(static_cast<std::int64_t>(v.size()));
  for (float f : v) t.add_float_data(f);
  return t;
}

bool runner_ready(exec::OrtRunner& r) {
  std::string why;
  if (r.version(&why)) return true;
  MESSAGE("ONNX Runtime runner unavailable, runtime checks skipped: " << why);
  return false;
}

}  // namespace

// y = Identity(x) over float[n]: the runner's comparison sees exactly the given input.
onnx::ModelProto identity_model(int n) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("id");
  auto* node = g->add_node();
  node->set_op_type("Identity");
  node->add_input("x");
  node->add_output("y");
  for (auto* vi : {g->add_input(), g->add_output()}) {
    vi->set_name(vi == &g->input(0) ? "x" : "y");
    vi->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    vi->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(n);
  }
  return m;
}

TEST_CASE("compare (in the runner): tolerances, NaN, infinities, shapes") {
  exec::OrtRunner runner;
  if (!runner_ready(runner)) return;
  convfail::test::TempDir dir;
  std::filesystem::create_directories(dir.path() / "data");
  ReproOptions o;
  o.inputs_dir = (dir.path() / "data").string();
  auto run = [&](std::vector<float> x, std::vector<float> ref) {
    dir.save("data/input_0.pb", proto("x", x));
    dir.save("data/output_0.pb", proto("y", ref));
    return reproduce_model(runner, dir.save("id.onnx", identity_model(int(x.size()))), o);
  };
  auto close = run({1, 2}, {1, 2.001f});  // within atol + rtol * |e|
  CHECK(close.verdict == kNotReproduced);
  CHECK(*close.max_abs_error == doctest::Approx(0.001).epsilon(0.01));
  auto off = run({1, 2}, {1, 2.1f});
  CHECK(off.verdict == kWrongOutputReproduced);
  CHECK(off.signature == "output y vs reference: 1 of 2 elements differ");
  CHECK(*off.max_abs_error == doctest::Approx(0.1).epsilon(0.01));
  CHECK(*off.max_rel_error == doctest::Approx(0.1 / 2.1).epsilon(0.01));
  CHECK(run({NAN, 1}, {NAN, 1}).verdict == kNotReproduced);
  auto nan = run({NAN, 1}, {0, 1});
  CHECK(nan.verdict == kWrongOutputReproduced);
  CHECK(*nan.max_abs_error == 1e308);  // infinite, stored finite
  CHECK(run({INFINITY}, {INFINITY}).verdict == kNotReproduced);
  CHECK(run({-INFINITY}, {INFINITY}).verdict == kWrongOutputReproduced);
  // A reference of another shape: the problem names both shapes.
  dir.save("data/input_0.pb", proto("x", {1, 2}));
  auto ref = proto("y", {1, 2});
  ref.clear_dims();
  ref.add_dims(1);
  ref.add_dims(2);
  dir.save("data/output_0.pb", ref);
  auto shape = reproduce_model(runner, dir.save("id.onnx", identity_model(2)), o);
  CHECK(shape.verdict == kWrongOutputReproduced);
  CHECK(shape.signature == "output y vs reference: shape [2] vs expected [1,2]");
}

TEST_CASE("signature: paths, numbers, names and case normalised") {
  std::string a = exec::error_signature(
      "[ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for Add(14) "
      "node with name 'add_12' in /tmp/convfail-repro-1/m.onnx\nsecond line");
  std::string b = exec::error_signature(
      "[ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for Add(7) "
      "node with name \"n0\" in /home/x/other.onnx");
  CHECK(a == b);
  CHECK(a ==
        "[onnxruntimeerror] : n : not_implemented : could not find an implementation for "
        "add(n) node with name '<name>' in <path>");
  CHECK(exec::error_signature("segfault at 0x7ffe12 in ort::Foo") ==
        "segfault at <addr> in ort::foo");
}

TEST_CASE("reproduce: structure failures are crash verdicts with their step") {
  convfail::test::TempDir dir;
  exec::OrtRunner runner;
  ReproOptions o;
  std::string good = dir.save("good.onnx", binary_model("Sub"));
  // Truncated file: parse.
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::string cut = dir.write("cut.onnx", bytes.substr(0, bytes.size() / 2));
  auto v = reproduce_model(runner, cut, o);
  CHECK(v.verdict == kCrashReproduced);
  CHECK(v.step == "parse");
  // A web page saved under a model name is not runnable, not a crash.
  auto html =
      reproduce_model(runner, dir.write("page.onnx", "<!DOCTYPE html><html>login</html>"), o);
  CHECK(html.verdict == kNotRunnable);
  CHECK(html.reason.find("HTML") != std::string::npos);
  // Unknown operator in the default domain: checker.
  auto c = reproduce_model(runner, dir.save("bad.onnx", binary_model("NoSuchOp")), o);
  CHECK(c.verdict == kCrashReproduced);
  CHECK(c.step == "checker");
  CHECK(c.signature.find("nosuchop") != std::string::npos);
  // Type clash caught by strict shape inference: Sub of float and int64.
  auto typed = binary_model("Sub");
  typed.mutable_graph()->mutable_input(1)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::INT64);
  auto s = reproduce_model(runner, dir.save("typed.onnx", typed), o);
  CHECK(s.verdict == kCrashReproduced);
  CHECK(s.step == "shape_inference");
  // Newer opset than libonnx knows: not runnable, not a crash.
  auto newer = binary_model("Sub");
  newer.mutable_opset_import(0)->set_version(99);
  auto n = reproduce_model(runner, dir.save("newer.onnx", newer), o);
  CHECK(n.verdict == kNotRunnable);
  CHECK(n.reason.find("newer than this libonnx") != std::string::npos);
}

TEST_CASE("reproduce: ONNX Runtime verdicts (pass, wrong output, session crash, inputs)") {
  exec::OrtRunner runner;
  if (!runner_ready(runner)) return;
  convfail::test::TempDir dir;
  ReproOptions o;
  std::string model = dir.save("sub.onnx", binary_model("Sub"));
  auto gen = reproduce_model(runner, model, o);  // generated inputs, optimized vs unoptimized
  CHECK(gen.verdict == kNotReproduced);
  CHECK_FALSE(gen.ort_version.empty());

  std::filesystem::create_directories(dir.path() / "data");
  dir.save("data/input_0.pb", proto("a", {5, 7}));
  dir.save("data/input_1.pb", proto("b", {2, 3}));
  dir.save("data/output_0.pb", proto("y", {3, 4}));
  o.inputs_dir = (dir.path() / "data").string();
  auto ok = reproduce_model(runner, model, o);
  CHECK(ok.verdict == kNotReproduced);
  CHECK(*ok.max_abs_error == 0);

  dir.save("data/output_0.pb", proto("y", {3, 5}));  // reference disagrees with ORT
  auto wrong = reproduce_model(runner, model, o);
  CHECK(wrong.verdict == kWrongOutputReproduced);
  CHECK(wrong.output_name == "y");
  CHECK(*wrong.max_abs_error == doctest::Approx(1));
  CHECK(wrong.signature == "output y vs reference: 1 of 2 elements differ");

  std::filesystem::remove(dir.path() / "data/input_1.pb");
  auto missing = reproduce_model(runner, model, o);
  CHECK(missing.verdict == kNotRunnable);
  CHECK(missing.reason == "missing input_1.pb");

  // An operator of a domain ORT does not know: the session creation fails.
  ReproOptions plain;
  auto custom =
      reproduce_model(runner, dir.save("custom.onnx", binary_model("Frob", "com.example")), plain);
  CHECK(custom.verdict == kCrashReproduced);
  CHECK(custom.step == "session");
  CHECK_FALSE(custom.signature.empty());

  auto j = model_run_json(wrong);
  CHECK(j["verdict"] == "wrong_output_reproduced");
  CHECK(j["step"] == "compare");
  CHECK(j.contains("max_rel_error"));
}

TEST_CASE("runner protocol: hello, bad request, crash and restart, timeout") {
  exec::OrtRunner runner;
  if (!runner_ready(runner)) return;
  auto hello = runner.raw_request(R"({"op":"hello"})");
  REQUIRE(hello.line);
  auto j = nlohmann::json::parse(*hello.line);
  CHECK(j["ok"] == true);
  CHECK(j["ort_version"].get<std::string>().rfind("1.", 0) == 0);
  auto bad = runner.raw_request("not json");
  REQUIRE(bad.line);
  CHECK(nlohmann::json::parse(*bad.line)["step"] == "protocol");
  int starts = runner.process_starts();
  auto crash = runner.raw_request(R"({"op":"crash"})");
  CHECK_FALSE(crash.line);
  CHECK(crash.failure.kind == exec::ExitKind::kSignaled);
  CHECK(crash.failure.signal == SIGSEGV);
  auto again = runner.raw_request(R"({"op":"hello"})");
  REQUIRE(again.line);
  CHECK(runner.process_starts() == starts + 1);
}

TEST_CASE("reproduce: a model that floods memory is a crash verdict, the runner carries on") {
  exec::RunnerOptions ro;
  ro.limits.memory_bytes = 2ull << 30;
  exec::OrtRunner runner(ro);
  if (!runner_ready(runner)) return;
  convfail::test::TempDir dir;
  // y = ConstantOfShape(shape) with shape = [40000, 40000]: 6.4 GB of float zeros.
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("flood");
  auto* n = g->add_node();
  n->set_op_type("ConstantOfShape");
  n->add_input("shape");
  n->add_output("y");
  auto* in = g->add_input();
  in->set_name("shape");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  in->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  auto* out = g->add_output();
  out->set_name("y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  out->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("h");
  out->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("w");
  std::filesystem::create_directories(dir.path() / "data");
  onnx::TensorProto shape;
  shape.set_data_type(onnx::TensorProto::INT64);
  shape.add_dims(2);
  shape.add_int64_data(40000);
  shape.add_int64_data(40000);
  dir.save("data/input_0.pb", shape);
  ReproOptions o;
  o.inputs_dir = (dir.path() / "data").string();
  o.timeout_seconds = 60;
  auto v = reproduce_model(runner, dir.save("flood.onnx", m), o);
  CHECK(v.verdict == kCrashReproduced);
  CHECK(v.step == "run");
  CHECK(v.message.find("Failed to allocate") != std::string::npos);
  ReproOptions plain;
  auto after = reproduce_model(runner, dir.save("sub.onnx", binary_model("Sub")), plain);
  CHECK(after.verdict == kNotReproduced);
}
