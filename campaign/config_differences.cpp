#include "campaign/config_differences.h"

#include <set>

#include "core/json_util.h"

namespace convfail::campaign {

using json = nlohmann::json;

namespace {

std::string value_text(const json& j, const std::string& key) {
  if (!j.is_object() || !j.contains(key)) return "-";
  const json& v = j[key];
  return v.is_string() ? v.get<std::string>() : json_text(v);
}

void differing_keys(const json& a, const json& b, const std::string& suffix,
                    std::vector<ConfigDifference>& out) {
  std::set<std::string> keys;
  for (const json* j : {&a, &b})
    if (j->is_object())
      for (const auto& [k, v] : j->items()) keys.insert(k);
  for (const auto& k : keys) {
    std::string va = value_text(a, k), vb = value_text(b, k);
    if (va != vb) out.push_back({k + suffix, va, vb});
  }
}

}  // namespace

std::vector<ConfigDifference> config_differences(const json& config_a, const json& config_b,
                                                 const json& versions_a, const json& versions_b) {
  std::vector<ConfigDifference> out;
  differing_keys(config_a, config_b, "", out);
  differing_keys(versions_a, versions_b, " version", out);
  return out;
}

std::string differences_line(const std::vector<ConfigDifference>& d, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < d.size() && i < max; ++i)
    out += (i ? "; " : "") + d[i].setting + " " + d[i].a + ", not " + d[i].b;
  if (d.size() > max) out += "; ...";
  return out;
}

}  // namespace convfail::campaign
