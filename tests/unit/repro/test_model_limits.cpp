// The model-side bounds of reproduce: the element-count cap (--max-elements) and external data
// locations that must stay inside the model's folder.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>

#include "repro/reproduce.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::repro;
using namespace convfail::exec;
namespace fs = std::filesystem;

namespace {

// y = Add(x, w): x fed with `dims`, w an initializer (external data at `location` when given).
onnx::ModelProto add_model(const std::vector<std::int64_t>& dims, const std::string& location) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* n = g->add_node();
  n->set_op_type("Add");
  n->add_input("x");
  n->add_input("w");
  n->add_output("y");
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(1);
  if (location.empty()) {
    w->add_float_data(1);
  } else {
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = w->add_external_data();
    kv->set_key("location");
    kv->set_value(location);
  }
  for (auto* vi : {g->add_input(), g->add_output()}) {
    vi->set_name(g->input_size() && vi == &g->input(0) ? "x" : "y");
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  return m;
}

}  // namespace

TEST_CASE("element_count_within: the cap, overflow, negative and empty shapes") {
  constexpr std::int64_t kCap = std::int64_t{1} << 28;
  CHECK(element_count_within({}, kCap) == 1);
  CHECK(element_count_within({2, 3}, 6) == 6);
  CHECK_FALSE(element_count_within({2, 3}, 5));
  CHECK(element_count_within({1 << 14, 1 << 14}, kCap) == kCap);
  CHECK_FALSE(element_count_within({1 << 20, 1 << 20}, kCap));  // 2^40
  // Products that overflow 64 bits are over any cap, not negative or small.
  CHECK_FALSE(element_count_within({std::int64_t{1} << 62, 4}, kCap));
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  CHECK_FALSE(element_count_within({kMax, kMax, kMax}, kMax));
  CHECK_FALSE(element_count_within({-1, 4}, kCap));
  CHECK(element_count_within({0, kMax, kMax}, kCap) == 0);
  // Given data is held to the same cap.
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(std::int64_t{1} << 40);
  CHECK_THROWS_WITH_AS(exec::tensor_from_proto(t, kCap), doctest::Contains("--max-elements"),
                       std::runtime_error);
}

TEST_CASE("tensor files: the runner's raw outputs read back by shape and written as .pb") {
  test::TempDir dir;
  exec::Tensor t;
  t.name = "out";
  t.elem_type = onnx::TensorProto::FLOAT;
  t.dims = {2, 3};
  for (float f : {1.f, -2.f, 3.5f, 0.f, 1e-7f, 6.f})
    t.bytes.append(reinterpret_cast<const char*>(&f), sizeof f);
  exec::write_tensor_file(t, dir.file("raw.bin"));
  exec::Tensor back = read_tensor_file(dir.file("raw.bin"), onnx::TensorProto::FLOAT, {2, 3}, 100);
  CHECK(back.bytes == t.bytes);
  // The shape must account for every byte, and the cap holds.
  CHECK_THROWS_AS(read_tensor_file(dir.file("raw.bin"), onnx::TensorProto::FLOAT, {2, 2}, 100),
                  std::runtime_error);
  CHECK_THROWS_AS(read_tensor_file(dir.file("raw.bin"), onnx::TensorProto::FLOAT, {2, 3}, 5),
                  std::runtime_error);
  exec::write_tensor_pb(t, dir.file("out.pb"));
  exec::Tensor pb = exec::read_tensor_pb(dir.file("out.pb"), 100);
  CHECK(pb.name == "out");
  CHECK(pb.dims == t.dims);
  CHECK(pb.bytes == t.bytes);
  exec::Tensor s;
  s.name = "s";
  s.elem_type = onnx::TensorProto::STRING;
  s.dims = {2};
  s.strings = {"a", "b\"c"};
  exec::write_tensor_file(s, dir.file("s.json"));
  CHECK(read_tensor_file(dir.file("s.json"), onnx::TensorProto::STRING, {2}, 100).strings ==
        s.strings);
  CHECK_THROWS_AS(read_tensor_file(dir.file("s.json"), onnx::TensorProto::STRING, {3}, 100),
                  std::runtime_error);
  exec::write_tensor_pb(s, dir.file("s.pb"));
  CHECK(exec::read_tensor_pb(dir.file("s.pb"), 100).strings == s.strings);
}

TEST_CASE("external_data_inside: relative locations inside the model's folder only") {
  convfail::test::TempDir dir;
  std::string d = dir.path().string();
  dir.write("w.bin", std::string(4, '\0'));
  fs::create_directories(dir.path() / "sub");
  CHECK(external_data_inside(add_model({1}, ""), d));
  CHECK(external_data_inside(add_model({1}, "w.bin"), d));
  CHECK(external_data_inside(add_model({1}, "sub/../w.bin"), d));
  CHECK(external_data_inside(add_model({1}, "sub/not_yet.bin"), d));
  for (const char* bad :
       {"/etc/passwd", "/etc/shadow", "../../../../etc/passwd", "..", "sub/../../w.bin"}) {
    CAPTURE(std::string(bad));
    CHECK_FALSE(external_data_inside(add_model({1}, bad), d));
  }
  // External data without a location is not inside either.
  auto nameless = add_model({1}, "w.bin");
  nameless.mutable_graph()->mutable_initializer(0)->mutable_external_data(0)->set_key("offset");
  CHECK_FALSE(external_data_inside(nameless, d));
  // A symlink in the folder is followed: pointing outside is outside.
  fs::create_symlink("/etc/passwd", dir.path() / "link.bin");
  CHECK_FALSE(external_data_inside(add_model({1}, "link.bin"), d));
  fs::create_directory_symlink("/etc", dir.path() / "etc");
  CHECK_FALSE(external_data_inside(add_model({1}, "etc/passwd"), d));
  fs::create_symlink(dir.path() / "w.bin", dir.path() / "inner.bin");
  CHECK(external_data_inside(add_model({1}, "inner.bin"), d));
  // Tensors in Constant attributes and in subgraphs count too.
  auto m = add_model({1}, "");
  auto* c = m.mutable_graph()->add_node();
  c->set_op_type("Constant");
  c->add_output("k");
  auto* attr = c->add_attribute();
  attr->set_name("value");
  attr->set_type(onnx::AttributeProto::TENSOR);
  *attr->mutable_t() = add_model({1}, "/etc/passwd").graph().initializer(0);
  CHECK_FALSE(external_data_inside(m, d));
  auto outer = add_model({1}, "");
  auto* iff = outer.mutable_graph()->add_node();
  iff->set_op_type("If");
  auto* branch = iff->add_attribute();
  branch->set_name("then_branch");
  branch->set_type(onnx::AttributeProto::GRAPH);
  *branch->mutable_g() = add_model({1}, "../x.bin").graph();
  CHECK_FALSE(external_data_inside(outer, d));
}

TEST_CASE("reproduce: a huge declared shape or outside external data is not_runnable, at once") {
  convfail::test::TempDir dir;
  exec::OrtRunner runner;  // never started: both are refused before the checker and the runner
  ReproOptions o;
  auto t0 = std::chrono::steady_clock::now();
  auto huge = reproduce_model(runner, dir.save("huge.onnx", add_model({1 << 20, 1 << 20}, "")), o);
  CHECK(huge.verdict == kNotRunnable);
  CHECK(huge.step == "inputs");
  CHECK(huge.reason ==
        "input 'x' declares shape [1048576,1048576]: more than 268435456 elements "
        "(--max-elements)");
  o.max_elements = 4;
  auto small = reproduce_model(runner, dir.save("five.onnx", add_model({5}, "")), o);
  CHECK(small.verdict == kNotRunnable);
  CHECK(small.reason.find("more than 4 elements") != std::string::npos);
  auto neg = reproduce_model(runner, dir.save("neg.onnx", add_model({-3}, "")), o);
  CHECK(neg.verdict == kNotRunnable);
  CHECK(neg.reason.find("negative dimension") != std::string::npos);
  for (const char* location : {"/etc/passwd", "../../../../etc/passwd"}) {
    auto v = reproduce_model(runner, dir.save("ext.onnx", add_model({1}, location)), o);
    CHECK(v.verdict == kNotRunnable);
    CHECK(v.reason == kExternalDataOutside);
    CHECK(model_run_json(v).dump().find("root:") == std::string::npos);
  }
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  CHECK(runner.process_starts() == 0);
}

TEST_CASE("OrtRunner: the children see the model's folder read-only and a private scratch folder") {
  convfail::test::TempDir dir;
  fs::create_directories(dir.path() / "a");
  fs::create_directories(dir.path() / "b");
  exec::RunnerOptions ro;
  ro.model_roots = {(dir.path() / "a").string()};
  exec::OrtRunner runner(ro);
  std::string why;
  if (!runner.version(&why)) {
    MESSAGE("ONNX Runtime runner unavailable: " << why);
    return;
  }
  auto has = [](const exec::SandboxSpec& s, const fs::path& p) {
    return std::find(s.read_only_paths.begin(), s.read_only_paths.end(),
                     fs::canonical(p).string()) != s.read_only_paths.end();
  };
  const std::string scratch = runner.runner_spec().limits.writable_dir;
  REQUIRE_FALSE(scratch.empty());
  CHECK(scratch == runner.checker_spec().limits.writable_dir);
  CHECK((fs::status(scratch).permissions() & fs::perms::others_all) == fs::perms::none);
  CHECK(has(runner.runner_spec(), default_runner_dir()));
  CHECK(has(runner.checker_spec(), fs::read_symlink("/proc/self/exe")));
  ReproOptions o;
  int starts = runner.process_starts();
  // Under a model root: the running runner serves it.
  CHECK(reproduce_model(runner, dir.save("a/m.onnx", add_model({2}, "")), o).verdict ==
        kNotReproduced);
  CHECK(runner.process_starts() == starts);
  CHECK(runner.checker_starts() == 1);
  CHECK_FALSE(has(runner.runner_spec(), dir.path()));
  // Elsewhere: both children restart with that model's folder (and only it) added.
  CHECK(reproduce_model(runner, dir.save("b/m.onnx", add_model({2}, "")), o).verdict ==
        kNotReproduced);
  CHECK(runner.process_starts() == starts + 1);
  CHECK(runner.checker_starts() == 2);
  CHECK(has(runner.runner_spec(), dir.path() / "b"));
  CHECK(has(runner.checker_spec(), dir.path() / "b"));
  CHECK_FALSE(has(runner.runner_spec(), dir.path()));
  // The scratch folder goes with its runner.
  std::string gone;
  {
    exec::OrtRunner other;
    gone = other.runner_spec().limits.writable_dir;
    CHECK(fs::is_directory(gone));
  }
  CHECK_FALSE(fs::exists(gone));
  CHECK(fs::is_directory(scratch));
}

TEST_CASE("OrtRunner: a runner reply with wrong types is a failed run, not an exception") {
  convfail::test::TempDir dir;
  // A fake runner.js that answers every line with {"ok": "yes", "levels": 3}.
  dir.write("runner.js",
            "require('readline').createInterface({input: process.stdin}).on('line', () =>\n"
            "  process.stdout.write(JSON.stringify({ok: 'yes', levels: 3, step: 7}) + '\\n'));\n");
  std::filesystem::create_directories(dir.path() / "node_modules" / "onnxruntime-node");
  exec::RunnerOptions ro;
  ro.runner_dir = dir.path().string();
  exec::OrtRunner runner(ro);
  exec::RunnerRequest rq;
  rq.model = dir.write("m.onnx", "x");
  exec::RunnerReply r;
  CHECK_NOTHROW(r = runner.run(rq));
  if (r.process) {
    MESSAGE("node unavailable: " << r.process->describe());
    return;
  }
  CHECK_FALSE(r.ok);
  CHECK(r.step == "protocol");
  CHECK(r.error == "runner failed");
}
