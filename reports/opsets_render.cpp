#include "reports/opsets_render.h"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace convfail::reports {
namespace {

std::string pad(const std::string& s, std::size_t w, bool right = true) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

std::string list(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

std::string render_opsets_text(const std::vector<OpsetVersion>& history,
                               const std::optional<OpsetIssueBins>& bins, bool names) {
  std::string out = "opset  added  updated  total\n";
  for (const auto& v : history) {
    out += pad(std::to_string(v.version), 5) + pad(std::to_string(v.added.size()), 7) +
           pad(std::to_string(v.updated.size()), 9) + pad(std::to_string(v.total), 7) + "\n";
    if (names) {
      if (!v.added.empty()) out += "       added: " + list(v.added) + "\n";
      if (!v.updated.empty()) out += "       updated: " + list(v.updated) + "\n";
      if (!v.deprecated.empty()) out += "       deprecated: " + list(v.deprecated) + "\n";
    }
  }
  if (!bins) return out;
  out +=
      "\nissues by opset release period\nopset  onnx    from        to          changes  issues\n";
  for (const auto& p : bins->periods)
    out += pad(std::to_string(p.release.opset), 5) + "  " + pad(p.release.onnx, 6, false) + "  " +
           p.release.date + "  " + pad(p.end.empty() ? "-" : p.end, 10, false) +
           pad(std::to_string(p.changes), 9) + pad(std::to_string(p.issues), 8) + "\n";
  out += "outside the periods: " + std::to_string(bins->before) + " before, " +
         std::to_string(bins->after) + " after, " + std::to_string(bins->undated) + " undated\n";
  char rho[64];
  if (std::isnan(bins->spearman))
    std::snprintf(rho, sizeof rho, "n/a (too few periods, or a constant series)");
  else
    std::snprintf(rho, sizeof rho, "%.3f", bins->spearman);
  out += "Spearman correlation (operator changes vs issues, " +
         std::to_string(bins->periods.size()) + " periods): " + rho + "\n";
  return out;
}

std::string render_opsets_json(const std::vector<OpsetVersion>& history,
                               const std::optional<OpsetIssueBins>& bins) {
  using nlohmann::json;
  json versions = json::array();
  for (const auto& v : history)
    versions.push_back({{"opset", v.version},
                        {"added", v.added.size()},
                        {"updated", v.updated.size()},
                        {"total", v.total},
                        {"added_operators", v.added},
                        {"updated_operators", v.updated},
                        {"deprecated_operators", v.deprecated}});
  json out = {{"domain", "ai.onnx"}, {"opsets", versions}};
  if (bins) {
    json periods = json::array();
    for (const auto& p : bins->periods)
      periods.push_back({{"opset", p.release.opset},
                         {"onnx", p.release.onnx},
                         {"from", p.release.date},
                         {"to", p.end.empty() ? json() : json(p.end)},
                         {"changes", p.changes},
                         {"issues", p.issues},
                         {"issues_by_converter", p.issues_by_converter}});
    out["periods"] = periods;
    out["issues_before"] = bins->before;
    out["issues_after"] = bins->after;
    out["issues_undated"] = bins->undated;
    out["spearman"] = std::isnan(bins->spearman) ? json() : json(bins->spearman);
  }
  return out.dump(2) + "\n";
}

}  // namespace convfail::reports
