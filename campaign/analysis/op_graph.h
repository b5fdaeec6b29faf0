// A model as an operator graph: one operator type per ONNX node (node order) and the edges
// between nodes (a node's output feeding another node's input). Read from a campaign row's
// graph_json / operators_json (schema 0012) or from an ONNX model file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace convfail::campaign {

struct OpGraph {
  std::vector<std::string> ops;        // operator type of each node, in node order
  std::vector<std::vector<int>> succ;  // successors of each node: sorted, no duplicates
};

// Caps on what a stored graph may hold (hostile or broken rows stay bounded).
inline constexpr std::size_t kMaxGraphNodes = 200000;
inline constexpr std::size_t kMaxGraphEdges = 2000000;

// {"ops":["Conv",...],"edges":[[from,to],...]} (a stored row's graph, parsed by the store):
// UserError "<where>: <what is wrong>" for anything else (not an object, a non-string op, an edge
// out of range or onto its own node, too big).
OpGraph op_graph_from_json(const nlohmann::json& graph, const std::string& where);
// ["Conv","Relu",...] (operators_json): the nodes without edges.
OpGraph op_graph_from_operators(const nlohmann::json& ops, const std::string& where);

// The operator graph of an ONNX model file (main graph; operator types outside the default
// domain are written DOMAIN:TYPE). UserError "<path>: ..." when it is not a readable model.
OpGraph op_graph_from_onnx_file(const std::string& path);

// Distinct operator types, sorted.
std::vector<std::string> operator_types(const OpGraph& g);

}  // namespace convfail::campaign
