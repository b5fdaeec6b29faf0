#include "reports/opsets.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/text.h"
#include "reports/report_data.h"
#include "reports/spearman.h"

namespace convfail::reports {
namespace {

// op name -> since_version -> deprecated, for the default domain.
std::map<std::string, std::map<int, bool>> default_domain_versions() {
  std::map<std::string, std::map<int, bool>> ops;
  for (const auto& s : ONNX_NAMESPACE::OpSchemaRegistry::get_all_schemas_with_history())
    if (s.domain() == ONNX_NAMESPACE::ONNX_DOMAIN || s.domain() == "ai.onnx")
      ops[s.Name()][s.SinceVersion()] = s.Deprecated();
  return ops;
}

}  // namespace

std::vector<OpsetVersion> opset_history() {
  auto ops = default_domain_versions();
  int max_version = 0;
  for (const auto& [name, versions] : ops)
    max_version = std::max(max_version, versions.rbegin()->first);
  std::vector<OpsetVersion> out;
  for (int v = 1; v <= max_version; ++v) {
    OpsetVersion row;
    row.version = v;
    for (const auto& [name, versions] : ops) {
      if (versions.count(v)) {
        if (versions.begin()->first == v) {
          row.added.push_back(name);
        } else {
          row.updated.push_back(name);
          if (versions.at(v)) row.deprecated.push_back(name);
        }
      }
      // Alive at v: its latest schema at or before v exists and is not deprecated.
      auto it = versions.upper_bound(v);
      if (it != versions.begin() && !std::prev(it)->second) ++row.total;
    }
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<int> operator_versions(const std::string& op) {
  auto ops = default_domain_versions();
  std::vector<int> out;
  auto it = ops.find(op);
  if (it != ops.end())
    for (const auto& [v, deprecated] : it->second) out.push_back(v);
  return out;
}

std::vector<OpsetRelease> load_opset_releases(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + ": cannot read the opset release dates");
  std::stringstream text;
  text << in.rdbuf();
  std::vector<OpsetRelease> out;
  try {
    auto j = nlohmann::json::parse(text.str());
    for (const auto& r : j.at("releases")) {
      OpsetRelease rel{r.at("opset").get<int>(), r.at("onnx").get<std::string>(),
                       r.at("date").get<std::string>()};
      if (!is_iso_date(rel.date)) throw UserError(path + ": not a date (YYYY-MM-DD): " + rel.date);
      out.push_back(rel);
    }
  } catch (const nlohmann::json::exception& e) {
    throw UserError(path + ": " + e.what());
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.opset < b.opset; });
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i].date < out[i - 1].date || out[i].opset == out[i - 1].opset)
      throw UserError(path + ": releases must have distinct opsets with dates in opset order");
  if (out.empty()) throw UserError(path + ": no releases");
  return out;
}

OpsetIssueBins bin_issues_by_opset(Db& db, const Taxonomy& tax,
                                   const std::vector<OpsetVersion>& history,
                                   const std::vector<OpsetRelease>& releases,
                                   const std::vector<std::string>& repos) {
  OpsetIssueBins bins;
  int max_known = history.empty() ? 0 : history.back().version;
  int previous_opset = 0;
  for (std::size_t i = 0; i < releases.size() && releases[i].opset <= max_known; ++i) {
    OpsetPeriod p;
    p.release = releases[i];
    if (i + 1 < releases.size()) p.end = releases[i + 1].date;
    for (const auto& v : history)
      if (v.version > previous_opset && v.version <= releases[i].opset)
        p.changes += static_cast<long>(v.added.size() + v.updated.size());
    previous_opset = releases[i].opset;
    bins.periods.push_back(std::move(p));
  }
  std::set<std::string> wanted;
  for (const auto& r : repos) wanted.insert(lower(r));
  Stmt st(db,
          "SELECT r.full_name, i.created_at FROM issues i JOIN repositories r ON r.id = i.repo_id "
          "WHERE i.is_pull_request = 0");
  while (st.step()) {
    std::string repo = st.text(0);
    if (!wanted.empty() && !wanted.count(lower(repo))) continue;
    auto created = st.opt_text(1);
    if (!created || created->size() < 10 || bins.periods.empty()) {
      ++bins.undated;
      continue;
    }
    std::string day = created->substr(0, 10);
    if (day < bins.periods.front().release.date) {
      ++bins.before;
      continue;
    }
    bool placed = false;
    for (auto& p : bins.periods)
      if (day >= p.release.date && (p.end.empty() || day < p.end)) {
        ++p.issues;
        ++p.issues_by_converter[tax.converter_for_repo(repo)];
        placed = true;
        break;
      }
    if (!placed) ++bins.after;
  }
  std::vector<double> x, y;
  for (const auto& p : bins.periods) {
    x.push_back(static_cast<double>(p.changes));
    y.push_back(static_cast<double>(p.issues));
  }
  bins.spearman = spearman(x, y);
  return bins;
}

}  // namespace convfail::reports
