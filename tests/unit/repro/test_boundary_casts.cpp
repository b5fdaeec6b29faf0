// A model whose boundary holds a type the ONNX Runtime release's Node binding cannot (float16 on
// old releases, bfloat16 on every one so far) runs wrapped with Casts (repro/boundary_casts.h):
// the wrap itself, and a bfloat16 model through reproduce_model on the pinned release, compared
// in bfloat16.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "exec/tensor.h"
#include "repro/boundary_casts.h"
#include "repro/reproduce.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::repro;
namespace fs = std::filesystem;
using OnnxTensor = onnx::TensorProto;

namespace {

void value(onnx::ValueInfoProto* v, const std::string& name, int type) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(type);
  tt->mutable_shape()->add_dim()->set_dim_value(3);
}

onnx::NodeProto* node(onnx::GraphProto* g, const std::string& op, std::vector<std::string> in,
                      const std::string& out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name("/" + op + "_" + out);
  for (const auto& i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

void cast_to(onnx::NodeProto* n, int type) {
  auto* a = n->add_attribute();
  a->set_name("to");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(type);
}

// y = Cast<T>(Cast<float>(x) + w): x and y of type T, w a float initializer (1.0 each); a
// second output k = Identity(n), n an int64 input, and a value already named x_float32.
onnx::ModelProto add_one_model(int type) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(16);
  auto* g = m.mutable_graph();
  g->set_name("g");
  cast_to(node(g, "Cast", {"x"}, "x_float32"), OnnxTensor::FLOAT);
  node(g, "Add", {"x_float32", "w"}, "sum");
  cast_to(node(g, "Cast", {"sum"}, "y"), type);
  node(g, "Identity", {"n"}, "k");
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(OnnxTensor::FLOAT);
  w->add_dims(3);
  for (int i = 0; i < 3; ++i) w->add_float_data(1);
  value(g->add_input(), "x", type);
  value(g->add_input(), "n", OnnxTensor::INT64);
  value(g->add_output(), "y", type);
  value(g->add_output(), "k", OnnxTensor::INT64);
  return m;
}

exec::Tensor tensor16(int type, std::vector<std::uint16_t> bits) {
  exec::Tensor t;
  t.elem_type = type;
  t.dims = {static_cast<std::int64_t>(bits.size())};
  t.bytes.assign(reinterpret_cast<const char*>(bits.data()), bits.size() * 2);
  return t;
}

exec::Tensor int64s(std::vector<std::int64_t> v) {
  exec::Tensor t;
  t.elem_type = OnnxTensor::INT64;
  t.dims = {static_cast<std::int64_t>(v.size())};
  t.bytes.assign(reinterpret_cast<const char*>(v.data()), v.size() * 8);
  return t;
}

}  // namespace

TEST_CASE("boundary casts: only the boundary values of the unheld types, under unused names") {
  onnx::ModelProto m = add_one_model(OnnxTensor::FLOAT16);
  CHECK(plan_boundary_casts(m, {OnnxTensor::BFLOAT16}).empty());
  BoundaryCasts c = plan_boundary_casts(m, {OnnxTensor::FLOAT16, OnnxTensor::BFLOAT16});
  REQUIRE(c.inputs.size() == 1);
  REQUIRE(c.outputs.size() == 1);
  CHECK(c.inputs[0].name == "x");
  CHECK(c.inputs[0].wrapped == "x_float32_1");  // x_float32 is taken by a node's output
  CHECK(c.outputs[0].index == 0);
  CHECK(c.outputs[0].wrapped == "y_float32");
  CHECK(c.types() == "float16");
  CHECK(c.note("1.14.0") ==
        "float16 inputs x and outputs y fed and read as float32 through Cast nodes at the model's "
        "boundary (ONNX Runtime 1.14.0's Node binding holds no float16), compared as float16");

  wrap_boundary(m, c);
  const auto& g = m.graph();
  CHECK(g.input(0).name() == "x_float32_1");
  CHECK(g.input(0).type().tensor_type().elem_type() == OnnxTensor::FLOAT);
  CHECK(g.input(1).name() == "n");  // untouched, in place
  CHECK(g.output(0).name() == "y_float32");
  CHECK(g.output(0).type().tensor_type().elem_type() == OnnxTensor::FLOAT);
  CHECK(g.output(1).name() == "k");
  REQUIRE(g.node_size() == 6);
  const auto& first = g.node(0);
  CHECK(first.op_type() == "Cast");
  CHECK(first.name().rfind(kBoundaryCastPrefix, 0) == 0);
  CHECK(first.input(0) == "x_float32_1");
  CHECK(first.output(0) == "x");
  CHECK(first.attribute(0).i() == OnnxTensor::FLOAT16);
  const auto& last = g.node(5);
  CHECK(last.name().rfind(kBoundaryCastPrefix, 0) == 0);
  CHECK(last.input(0) == "y");
  CHECK(last.output(0) == "y_float32");
  CHECK(last.attribute(0).i() == OnnxTensor::FLOAT);
  // The copy is a valid model: ONNX's checker and strict shape inference accept it.
  CHECK_NOTHROW(onnx::checker::check_model(m));
  onnx::ShapeInferenceOptions strict(/*check_type=*/true, /*error_mode=*/1);
  CHECK_NOTHROW(onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), strict));
}

TEST_CASE("reproduce: a bfloat16 model runs through boundary casts, compared in bfloat16") {
  convfail::test::TempDir dir;
  exec::OrtRunner runner;
  std::string why;
  if (!runner.version(&why)) {
    MESSAGE("skipped: " << why);
    return;
  }
  // No onnxruntime-node so far holds bfloat16 (the runner measures it); the pinned one holds
  // float16, so a float16 model runs as it is.
  REQUIRE(runner.unheld_types().count(OnnxTensor::BFLOAT16) == 1);
  std::string model = dir.save("m.onnx", add_one_model(OnnxTensor::BFLOAT16));
  fs::create_directories(dir.path() / "set");
  // x = 1, 0.5, 2 in bfloat16; y = x + 1 = 2, 1.5, 3.
  exec::write_tensor_pb(tensor16(OnnxTensor::BFLOAT16, {0x3f80, 0x3f00, 0x4000}),
                        dir.file("set/input_0.pb"));
  exec::write_tensor_pb(int64s({4, 5, 6}), dir.file("set/input_1.pb"));
  exec::write_tensor_pb(tensor16(OnnxTensor::BFLOAT16, {0x4000, 0x3fc0, 0x4040}),
                        dir.file("set/output_0.pb"));
  exec::write_tensor_pb(int64s({4, 5, 6}), dir.file("set/output_1.pb"));
  ReproOptions o;
  o.inputs_dir = dir.file("set");
  o.save_outputs = true;
  RunVerdict v = reproduce_model(runner, model, o);
  CHECK(v.verdict == kNotReproduced);
  CHECK(v.reason == "");
  CHECK(v.harness_note.find("bfloat16 inputs x and outputs y fed and read as float32") == 0);
  REQUIRE(v.checks.size() == 6);     // two outputs x (two levels against the reference + between)
  CHECK(v.checks[0].output == "y");  // the model's own name, not the wrapped one
  CHECK(v.checks[0].result.type == "BFLOAT16");
  REQUIRE(v.outputs.count("all"));
  CHECK(v.outputs["all"][0].elem_type == OnnxTensor::BFLOAT16);
  CHECK(v.outputs["all"][0].bytes ==
        tensor16(OnnxTensor::BFLOAT16, {0x4000, 0x3fc0, 0x4040}).bytes);

  // A reference off by one bfloat16 step (3 -> 3.015625) is a mismatch: the comparison is real.
  exec::write_tensor_pb(tensor16(OnnxTensor::BFLOAT16, {0x4000, 0x3fc0, 0x4041}),
                        dir.file("set/output_0.pb"));
  // (Outputs not saved: a folder made after the warm runner started is not its to write.)
  o.save_outputs = false;
  RunVerdict wrong = reproduce_model(runner, model, o);
  CHECK(wrong.verdict == kWrongOutputReproduced);
  CHECK(wrong.output_name == "y");
  CHECK(wrong.signature.find("1 of 3 elements differ") != std::string::npos);

  // float16 is held by the pinned binding: that model runs as it is, with no note.
  if (!runner.unheld_types().count(OnnxTensor::FLOAT16)) {
    std::string m16 = dir.save("m16.onnx", add_one_model(OnnxTensor::FLOAT16));
    ReproOptions g;  // generated inputs
    RunVerdict h = reproduce_model(runner, m16, g);
    CHECK(h.verdict == kNotReproduced);
    CHECK(h.harness_note == "");
  }
}
