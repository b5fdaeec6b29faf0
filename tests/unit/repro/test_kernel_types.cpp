// The element types a node's ONNX Runtime kernel is looked up by (repro/kernel_types.h), read
// from a model after shape inference: what a missing kernel's group is keyed on.
#include <doctest/doctest.h>

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "repro/kernel_types.h"

using namespace convfail;
using namespace convfail::repro;

namespace {

void input(onnx::GraphProto* g, const std::string& name, int type) {
  auto* v = g->add_input();
  v->set_name(name);
  v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
  v->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(4);
}

onnx::NodeProto* node(onnx::GraphProto* g, const std::string& op, const std::string& name,
                      std::vector<std::string> in, const std::string& out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const auto& i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

}  // namespace

TEST_CASE("kernel types: the node's constrained types after shape inference") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(16);
  onnx::GraphProto* g = m.mutable_graph();
  using TP = onnx::TensorProto;
  input(g, "x", TP::INT16);
  input(g, "c", TP::BOOL);
  input(g, "f", TP::FLOAT);
  node(g, "Relu", "/Relu", {"x"}, "r");               // T from a graph input
  node(g, "Neg", "/Neg", {"r"}, "n");                 // T from an inferred value (Relu's output)
  node(g, "Where", "/Where", {"c", "n", "n"}, "w");   // B is bool only: not a constraint to name
  auto* cast = node(g, "Cast", "/Cast", {"f"}, "k");  // T1 from the input, T2 from the output
  auto* to = cast->add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(TP::INT16);
  for (const char* out : {"w", "k"}) g->add_output()->set_name(out);
  onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance());
  CHECK(kernel_types(m, "/Relu") == std::vector<std::string>{"int16"});
  CHECK(kernel_types(m, "/Neg") == std::vector<std::string>{"int16"});
  CHECK(kernel_types(m, "/Where") == std::vector<std::string>{"int16"});
  CHECK(kernel_types(m, "/Cast") == std::vector<std::string>{"float32", "int16"});
  CHECK(kernel_types(m, "/Nope").empty());
  CHECK(kernel_types(m, "").empty());  // a node ONNX Runtime made has no name
}
