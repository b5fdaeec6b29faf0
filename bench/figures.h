// What every benchmark shares: its --quick switch and the one JSON line it ends with,
//   {"bench": NAME, "ratio": R, "ratio_of": "what R divides", "quick": B, "load_average": L, ...}
// R is the benchmark's headline figure against the baseline it measured in the same run; the
// other keys are its own figures. bench/check_quick.cmake (ctest -L bench) checks that line.
#pragma once

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

namespace convfail::bench {

// Whether argv holds --quick (small inputs, seconds: what ctest runs).
inline bool quick_mode(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--quick") == 0) return true;
  return false;
}

// Prints the closing JSON line. `figures` holds the benchmark's own keys; a NaN or infinite
// number becomes null (and fails the quick check).
inline void print_figures(const std::string& bench, double ratio, const std::string& ratio_of,
                          bool quick, nlohmann::json figures = nlohmann::json::object()) {
  nlohmann::json line = {
      {"bench", bench}, {"ratio", ratio}, {"ratio_of", ratio_of}, {"quick", quick}};
  // Wall times on a shared machine include waiting for the CPU: the load says how much.
  double load[1] = {0};
  if (getloadavg(load, 1) == 1) line["load_average"] = load[0];
  for (auto& [key, value] : figures.items()) line[key] = value;
  std::cout << line.dump() << std::endl;
}

}  // namespace convfail::bench
