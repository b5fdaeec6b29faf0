#include "campaign/analysis/op_graph.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <onnx/onnx_pb.h>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace convfail::campaign {
namespace {

using nlohmann::json;

std::vector<std::string> ops_of(const json& ops, const std::string& where) {
  if (!ops.is_array()) throw UserError(where + ": the operators are not a JSON array");
  if (ops.size() > kMaxGraphNodes)
    throw UserError(where + ": more than " + std::to_string(kMaxGraphNodes) + " operators");
  std::vector<std::string> out;
  out.reserve(ops.size());
  for (const auto& op : ops) {
    if (!op.is_string() || op.get_ref<const std::string&>().empty())
      throw UserError(where + ": operator " + std::to_string(out.size()) +
                      " is not a non-empty string");
    out.push_back(op.get<std::string>());
  }
  return out;
}

void finish(OpGraph& g) {
  for (auto& s : g.succ) {
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
}

}  // namespace

OpGraph op_graph_from_json(const json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("ops"))
    throw UserError(where + ": not an object with \"ops\" and \"edges\"");
  OpGraph g;
  g.ops = ops_of(j.at("ops"), where);
  g.succ.resize(g.ops.size());
  if (!j.contains("edges")) return g;
  const json& edges = j.at("edges");
  if (!edges.is_array()) throw UserError(where + ": \"edges\" is not an array");
  if (edges.size() > kMaxGraphEdges)
    throw UserError(where + ": more than " + std::to_string(kMaxGraphEdges) + " edges");
  const auto n = static_cast<std::int64_t>(g.ops.size());
  std::size_t k = 0;
  for (const auto& e : edges) {
    if (!e.is_array() || e.size() != 2 || !e[0].is_number_integer() || !e[1].is_number_integer())
      throw UserError(where + ": edge " + std::to_string(k) + " is not [from, to]");
    auto from = e[0].get<std::int64_t>(), to = e[1].get<std::int64_t>();
    if (from < 0 || to < 0 || from >= n || to >= n || from == to)
      throw UserError(where + ": edge " + std::to_string(k) + " [" + std::to_string(from) + ", " +
                      std::to_string(to) + "] is out of range or a self loop");
    g.succ[static_cast<std::size_t>(from)].push_back(static_cast<int>(to));
    ++k;
  }
  finish(g);
  return g;
}

OpGraph op_graph_from_operators(const json& ops, const std::string& where) {
  OpGraph g;
  g.ops = ops_of(ops, where);
  g.succ.resize(g.ops.size());
  return g;
}

OpGraph op_graph_from_onnx_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (ec) throw UserError(path + ": cannot read (" + ec.message() + ")");
  // Protobuf refuses messages over 2 GiB; test-suite models are far smaller.
  if (size > (1ull << 30)) throw UserError(path + ": larger than 1 GiB");
  std::ifstream in(path, std::ios::binary);
  onnx::ModelProto model;
  if (!in || !model.ParseFromIstream(&in))
    throw UserError(path + ": does not parse as an ONNX ModelProto");
  const auto& graph = model.graph();
  if (static_cast<std::size_t>(graph.node_size()) > kMaxGraphNodes)
    throw UserError(path + ": more than " + std::to_string(kMaxGraphNodes) + " nodes");
  OpGraph g;
  std::map<std::string, int> producer;
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    const std::string& domain = node.domain();
    g.ops.push_back(domain.empty() || domain == "ai.onnx" ? node.op_type()
                                                          : domain + ":" + node.op_type());
    for (const auto& out : node.output())
      if (!out.empty()) producer.emplace(out, i);
  }
  g.succ.resize(g.ops.size());
  for (int i = 0; i < graph.node_size(); ++i)
    for (const auto& in_name : graph.node(i).input()) {
      auto it = producer.find(in_name);
      if (it != producer.end() && it->second != i)
        g.succ[static_cast<std::size_t>(it->second)].push_back(i);
    }
  finish(g);
  return g;
}

std::vector<std::string> operator_types(const OpGraph& g) {
  std::set<std::string> s(g.ops.begin(), g.ops.end());
  return {s.begin(), s.end()};
}

}  // namespace convfail::campaign
