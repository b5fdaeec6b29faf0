// A campaign's configuration (stored as campaigns.config_json) and its deterministic plan: the
// list of models, each with its position (seq). The same configuration gives the same plan, so a
// killed campaign resumes by running the positions not stored yet.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testing/oracle.h"

namespace convfail::testing {

// NNSmith's nine generation types, in the order synth.py's ALL_DTYPES makes graph inputs (float32
// first: every synthetic model has it). `test run --dtypes all` names them.
// (Header-only: the worker reply's check and its fuzz target use it without the plan.)
inline const std::vector<std::string>& all_dtypes() {
  static const std::vector<std::string> k = {"float32", "float16", "float64", "uint8", "int8",
                                             "int16",   "int32",   "int64",   "bool"};
  return k;
}
// The requested types as the configuration stores them: "all" expanded, float32 added (synth.py
// always draws it), in all_dtypes() order, no repeats; UsageError names an unknown one.
std::vector<std::string> normalise_dtypes(const std::vector<std::string>& requested);

// The version of synth.py's seed -> model mapping (its GENERATOR): part of the configuration of a
// campaign with synthetic models, so that a campaign stored by another generator is not resumed
// with different models. Bump both together.
inline constexpr int kSyntheticGenerator = 3;

// The study's synthetic campaign (`test run --study`): 1,724 models of 15-100 operators over all
// nine types (the study: 2 conversion failures, 741 ORT failures, 100 mismatches, 881 successes).
inline constexpr int kStudyModels = 1724;

struct CampaignConfig {
  std::vector<std::string>
      sources;  // synthetic | torchvision|torchaudio|text|real[:NAME,...] | script:FILE.py
  std::int64_t seed = 1;
  int nodes_min = 15, nodes_max = 100, nodes_step = 5;
  int models = 100;  // synthetic models
  OracleOptions oracle;
  bool perturb = false;        // test hook: every exported model made wrong on purpose
  bool external_data = false;  // test hook: every exported model's weights in external data files
  // Synthetic models drawn only from the operator/type pairs the support matrix of the release
  // under test says work (testing/support_matrix); false: `test run --unfiltered`, today's draw.
  bool filtered = true;
  std::vector<std::string> scripts_abs;  // absolute paths of script:FILE sources (same order)

  // What identifies the campaign (sources, seed, nodes, models, opset, tolerances, inputs,
  // dtypes, max_elements, and with synthetic models the generator's version and whether the draw
  // is filtered): the key a rerun finds it by. run_campaign adds "ort", the ONNX Runtime
  // release the campaign runs on, so a campaign on another release is another campaign, and for
  // a filtered draw "support_matrix" (support_identity: the versions and the working pairs).
  nlohmann::json to_json() const;
};

// The oracle options a stored campaign ran with (campaigns.config_json): opset, tolerances,
// inputs, dtypes, max_elements and its ONNX Runtime release ("ort"); defaults where absent.
OracleOptions oracle_options_from_config(const nlohmann::json& config);

// "15-100:5", "30", "15-30" (step 5) -> min, max, step. Throws UsageError.
void parse_nodes(const std::string& text, CampaignConfig* config);

// A source of real architectures (a "zoo"): "torchvision", "torchaudio", "text" or "real" (all
// three), each optionally narrowed to ":NAME[,NAME...]" (those, in the worker's order).
bool is_zoo_source(const std::string& source);
// The libraries a zoo source draws from, in plan order: "real" -> torchvision, torchaudio, text.
std::vector<std::string> zoo_libraries(const std::string& source);
// The libraries the configuration's zoo sources need listed by the worker (each once, in order).
std::vector<std::string> zoo_libraries(const CampaignConfig& config);
// The names of "SOURCE:NAME,..." (empty for a plain source). Throws UsageError on an empty or
// non-identifier name.
std::vector<std::string> zoo_subset(const std::string& source);

// The node counts of the range, in order.
std::vector<int> node_counts(const CampaignConfig& config);

// The plan: synthetic models round-robin over the node counts (seed = config seed * 1000003 +
// seq), then the architectures of each zoo source (`zoo_models` as the worker lists them:
// [{"name","family","library"}], task source = its library, name "LIBRARY:NAME"), then scripts,
// in the order of --source. A subset name the worker does not list is refused (UserError) before
// anything runs.
std::vector<ModelTask> make_plan(const CampaignConfig& config, const nlohmann::json& zoo_models);

}  // namespace convfail::testing
