#include "repro/boundary_casts.h"

#include "core/text.h"
#include "exec/tensor.h"

namespace convfail::repro {

namespace {

// Every value and node name of the graph and its subgraphs: a new name must be none of them.
void collect_names(const onnx::GraphProto& g, std::set<std::string>& names, int depth) {
  if (depth > 64) return;  // protobuf's own recursion limit stops far deeper nesting
  for (const auto& v : g.input()) names.insert(v.name());
  for (const auto& v : g.output()) names.insert(v.name());
  for (const auto& v : g.value_info()) names.insert(v.name());
  for (const auto& t : g.initializer()) names.insert(t.name());
  for (const auto& n : g.node()) {
    names.insert(n.name());
    for (const auto& s : n.input()) names.insert(s);
    for (const auto& s : n.output()) names.insert(s);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_names(a.g(), names, depth + 1);
      for (const auto& sub : a.graphs()) collect_names(sub, names, depth + 1);
    }
  }
}

std::string fresh_name(const std::string& base, std::set<std::string>& taken) {
  std::string name = base;
  for (int i = 1; taken.count(name); ++i) name = base + "_" + std::to_string(i);
  taken.insert(name);
  return name;
}

int tensor_elem_type(const onnx::ValueInfoProto& v) {
  return v.type().value_case() == onnx::TypeProto::kTensorType ? v.type().tensor_type().elem_type()
                                                               : 0;
}

onnx::NodeProto cast_node(const std::string& name, const std::string& from, const std::string& to,
                          int to_type) {
  onnx::NodeProto n;
  n.set_name(name);
  n.set_op_type("Cast");
  n.add_input(from);
  n.add_output(to);
  auto* a = n.add_attribute();
  a->set_name("to");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(to_type);
  return n;
}

// "x, y and 3 more"
std::string names_text(const std::vector<BoundaryCasts::Value>& values) {
  std::string s;
  for (std::size_t i = 0; i < values.size() && i < 3; ++i)
    s += (i ? ", " : "") + truncate_utf8(values[i].name, 60);
  if (values.size() > 3) s += " and " + std::to_string(values.size() - 3) + " more";
  return s;
}

}  // namespace

std::string BoundaryCasts::types() const {
  std::set<std::string> names;
  for (const auto* list : {&inputs, &outputs})
    for (const auto& v : *list) names.insert(exec::ort_type_name(v.elem_type));
  std::string s;
  for (const auto& t : names) s += (s.empty() ? "" : " and ") + t;
  return s;
}

std::vector<const onnx::ValueInfoProto*> fed_inputs(const onnx::GraphProto& g) {
  std::set<std::string> inits;
  for (const auto& i : g.initializer()) inits.insert(i.name());
  std::vector<const onnx::ValueInfoProto*> out;
  for (const auto& in : g.input())
    if (!inits.count(in.name())) out.push_back(&in);
  return out;
}

std::string BoundaryCasts::note(const std::string& ort_version) const {
  std::string types = this->types();
  std::string what;
  if (!inputs.empty()) what = "inputs " + names_text(inputs);
  if (!outputs.empty()) what += (what.empty() ? "" : " and ") + ("outputs " + names_text(outputs));
  return types + " " + what +
         " fed and read as float32 through Cast nodes at the model's boundary (ONNX Runtime " +
         ort_version + "'s Node binding holds no " + types + "), compared as " + types;
}

BoundaryCasts plan_boundary_casts(const onnx::ModelProto& model, const std::set<int>& elem_types) {
  BoundaryCasts c;
  const auto& g = model.graph();
  std::set<std::string> taken;
  collect_names(g, taken, 0);
  auto fed = fed_inputs(g);
  for (std::size_t i = 0; i < fed.size(); ++i) {
    int type = tensor_elem_type(*fed[i]);
    if (elem_types.count(type))
      c.inputs.push_back({static_cast<int>(i), fed[i]->name(),
                          fresh_name(fed[i]->name() + "_float32", taken), type});
  }
  for (int i = 0; i < g.output_size(); ++i) {
    int type = tensor_elem_type(g.output(i));
    if (elem_types.count(type))
      c.outputs.push_back(
          {i, g.output(i).name(), fresh_name(g.output(i).name() + "_float32", taken), type});
  }
  return c;
}

void wrap_boundary(onnx::ModelProto& model, const BoundaryCasts& casts) {
  auto* g = model.mutable_graph();
  std::set<std::string> taken;
  collect_names(*g, taken, 0);
  for (const auto* list : {&casts.inputs, &casts.outputs})
    for (const auto& v : *list) taken.insert(v.wrapped);
  // Inputs: the graph input takes the float32 name and type; a Cast, first in node order, gives
  // the model's own name and type back to every node that reads it.
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (const auto& v : casts.inputs) {
    for (auto& in : *g->mutable_input())
      if (in.name() == v.name && in.type().has_tensor_type()) {
        in.set_name(v.wrapped);
        in.mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
        break;
      }
    *nodes.Add() = cast_node(fresh_name(std::string(kBoundaryCastPrefix) + "in", taken), v.wrapped,
                             v.name, v.elem_type);
  }
  for (auto& n : *g->mutable_node()) *nodes.Add() = std::move(n);
  // Outputs: a Cast, last in node order, to a float32 value that the graph output now names.
  for (const auto& v : casts.outputs) {
    auto& out = *g->mutable_output(v.index);
    out.set_name(v.wrapped);
    out.mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    *nodes.Add() = cast_node(fresh_name(std::string(kBoundaryCastPrefix) + "out", taken), v.name,
                             v.wrapped, onnx::TensorProto::FLOAT);
  }
  g->mutable_node()->Swap(&nodes);
}

}  // namespace convfail::repro
