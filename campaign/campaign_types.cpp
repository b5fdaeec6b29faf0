#include "campaign/campaign_types.h"

#include <algorithm>

using nlohmann::json;

namespace convfail::campaign {

json CampaignConfig::to_json() const {
  json j = {{"sources", sources},
            {"seed", seed},
            {"nodes", {nodes_min, nodes_max, nodes_step}},
            {"models", models},
            {"opset", oracle.opset},
            {"rtol", oracle.rtol},
            {"atol", oracle.atol},
            {"inputs", oracle.inputs},
            {"dtypes", oracle.dtypes},
            {"max_elements", oracle.max_elements}};
  if (std::find(sources.begin(), sources.end(), "synthetic") != sources.end()) {
    j["generator"] = kSyntheticGenerator;
    j["filtered"] = filtered;
  }
  if (oracle.image_size > 0) j["image_size"] = oracle.image_size;
  if (perturb) j["perturb_export"] = true;
  if (external_data) j["external_data_export"] = true;
  return j;
}

namespace {

// The stored value of `key` when it has the fallback's type, else the fallback.
template <typename T>
T stored_or(const json& stored, const char* key, T fallback) {
  auto it = stored.find(key);
  if (it == stored.end()) return fallback;
  if constexpr (std::is_same_v<T, bool>) {
    return it->is_boolean() ? it->get<bool>() : fallback;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return it->is_string() ? it->get<std::string>() : fallback;
  } else {
    return it->is_number() ? it->get<T>() : fallback;
  }
}

std::vector<std::string> stored_strings(const json& stored, const char* key,
                                        std::vector<std::string> fallback) {
  auto it = stored.find(key);
  if (it == stored.end() || !it->is_array()) return fallback;
  std::vector<std::string> out;
  for (const auto& v : *it)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

}  // namespace

CampaignConfig CampaignConfig::from_json(const json& stored) {
  CampaignConfig c;
  if (!stored.is_object()) return c;
  c.sources = stored_strings(stored, "sources", c.sources);
  c.seed = stored_or(stored, "seed", c.seed);
  if (auto n = stored.find("nodes"); n != stored.end() && n->is_array() && n->size() == 3 &&
                                     (*n)[0].is_number_integer() && (*n)[1].is_number_integer() &&
                                     (*n)[2].is_number_integer()) {
    c.nodes_min = (*n)[0].get<int>();
    c.nodes_max = (*n)[1].get<int>();
    c.nodes_step = (*n)[2].get<int>();
  }
  c.models = stored_or(stored, "models", c.models);
  OracleOptions& o = c.oracle;
  o.opset = stored_or(stored, "opset", o.opset);
  o.rtol = stored_or(stored, "rtol", o.rtol);
  o.atol = stored_or(stored, "atol", o.atol);
  o.inputs = stored_or(stored, "inputs", o.inputs);
  o.max_elements = stored_or(stored, "max_elements", o.max_elements);
  o.image_size = stored_or(stored, "image_size", o.image_size);
  o.dtypes = stored_strings(stored, "dtypes", o.dtypes);
  o.ort_version = stored_or(stored, "ort", o.ort_version);
  c.perturb = stored_or(stored, "perturb_export", false);
  c.external_data = stored_or(stored, "external_data_export", false);
  // A campaign stored before the draw was filtered had none: its key has no "filtered".
  c.filtered = stored_or(stored, "filtered", false);
  return c;
}

}  // namespace convfail::campaign
