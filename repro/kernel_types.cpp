#include "repro/kernel_types.h"

#include <map>
#include <set>

#include <onnx/defs/schema.h>

#include "core/text.h"
#include "exec/tensor.h"

namespace convfail::repro {
namespace {

std::string type_name(int elem_type) {
  std::string name = exec::ort_type_name(elem_type);
  return name.empty() ? lower(exec::onnx_type_name(elem_type)) : name;
}

// Element types of the graph's named values: inputs, initializers, inferred values, outputs.
std::map<std::string, int> value_types(const onnx::GraphProto& g) {
  std::map<std::string, int> types;
  auto add = [&](const onnx::ValueInfoProto& v) {
    if (v.type().has_tensor_type() && v.type().tensor_type().elem_type() != 0)
      types.emplace(v.name(), v.type().tensor_type().elem_type());
  };
  for (const auto& v : g.input()) add(v);
  for (const auto& t : g.initializer()) types.emplace(t.name(), t.data_type());
  for (const auto& v : g.value_info()) add(v);
  for (const auto& v : g.output()) add(v);
  return types;
}

int domain_version(const onnx::ModelProto& model, const std::string& domain) {
  for (const auto& o : model.opset_import())
    if (o.domain() == domain || (domain.empty() && o.domain() == "ai.onnx"))
      return static_cast<int>(o.version());
  return -1;
}

}  // namespace

std::vector<std::string> kernel_types(const onnx::ModelProto& inferred,
                                      const std::string& node_name) {
  // A node ONNX Runtime made itself (a function's body inlined, a fusion) has no name, and an
  // unnamed node of the model would be a guess.
  if (node_name.empty()) return {};
  const onnx::GraphProto& g = inferred.graph();
  const onnx::NodeProto* node = nullptr;
  for (const auto& n : g.node())
    if (n.name() == node_name) {
      node = &n;
      break;
    }
  if (!node) return {};
  std::map<std::string, int> types = value_types(g);
  auto type_of = [&](const std::string& value) {
    auto it = types.find(value);
    return it == types.end() ? 0 : it->second;
  };
  std::vector<std::string> out;
  const int version = domain_version(inferred, node->domain());
  const onnx::OpSchema* schema =
      version < 0 ? nullptr
                  : onnx::OpSchemaRegistry::Schema(node->op_type(), version, node->domain());
  if (!schema) {
    if (node->input_size() > 0 && type_of(node->input(0)) != 0)
      out.push_back(type_name(type_of(node->input(0))));
    return out;
  }
  std::set<std::string> generic, seen;  // constraints allowing more than one type; bound ones
  for (const auto& c : schema->typeConstraintParams())
    if (c.allowed_type_strs.size() > 1) generic.insert(c.type_param_str);
  auto bind = [&](const std::vector<onnx::OpSchema::FormalParameter>& formals,
                  const google::protobuf::RepeatedPtrField<std::string>& values) {
    for (int i = 0; i < values.size() && !formals.empty(); ++i) {
      const auto& formal =
          formals[std::min<std::size_t>(static_cast<std::size_t>(i), formals.size() - 1)];
      const std::string& constraint = formal.GetTypeStr();
      int t = values.Get(i).empty() ? 0 : type_of(values.Get(i));
      if (t == 0 || !generic.count(constraint) || !seen.insert(constraint).second) continue;
      out.push_back(type_name(t));
    }
  };
  bind(schema->inputs(), node->input());
  bind(schema->outputs(), node->output());
  return out;
}

}  // namespace convfail::repro
