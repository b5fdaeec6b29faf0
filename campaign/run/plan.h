// A campaign's deterministic plan (CampaignConfig: campaign_types.h): the list of models, each
// with its position (seq). The same configuration gives the same plan, so a
// killed campaign resumes by running the positions not stored yet.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/campaign_types.h"

namespace convfail::campaign {

// The requested types as the configuration stores them: "all" expanded, float32 added (synth.py
// always draws it), in all_dtypes() order, no repeats; UsageError names an unknown one.
std::vector<std::string> normalise_dtypes(const std::vector<std::string>& requested);

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

}  // namespace convfail::campaign
