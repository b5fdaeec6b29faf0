// What differs between two campaigns' configurations and versions, as one line: the merge
// refuses shards of different plans with it, and the comparison reports it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace convfail::campaign {

// One setting that differs: a configuration key ("seed", "ort", "opset", "rtol", "shard", ...)
// or a version ("torch version", "onnx version", ...); values as JSON text, strings unquoted,
// "-" when absent.
struct ConfigDifference {
  std::string setting, a, b;
};

// Every differing setting: the configurations' keys in name order, then the versions'.
std::vector<ConfigDifference> config_differences(const nlohmann::json& config_a,
                                                 const nlohmann::json& config_b,
                                                 const nlohmann::json& versions_a,
                                                 const nlohmann::json& versions_b);

// "seed 3, not 4; ort 1.20.1, not 1.19.2" (the first `max` of them, then "..."): one line.
std::string differences_line(const std::vector<ConfigDifference>& d, std::size_t max = 4);

}  // namespace convfail::campaign
