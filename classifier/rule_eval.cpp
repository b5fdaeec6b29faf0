#include "classifier/rule_eval.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

namespace convfail::classifier {

std::vector<RuleFiring> load_rule_firings(Db& db, std::int64_t run_id) {
  Stmt st(db,
          "SELECT DISTINCT e.rule_id, e.dimension, e.label, r.full_name, i.number "
          "FROM classifier_evidence e JOIN issues i ON i.id = e.issue_id "
          "JOIN repositories r ON r.id = i.repo_id WHERE e.run_id = ?");
  st.bind(1, run_id);
  std::vector<RuleFiring> out;
  while (st.step()) out.push_back({st.text(0), st.text(1), st.text(2), st.text(3), st.int64(4)});
  return out;
}

std::vector<RuleEval> evaluate_rules(const std::vector<RuleFiring>& firings, const GoldSet& gold,
                                     const std::set<int>& folds) {
  std::map<IssueKey, const GoldItem*> selected;
  std::map<std::string, long> with_dimension;                   // dimension -> gold issues
  std::map<std::pair<std::string, std::string>, long> labeled;  // (dimension, label) -> issues
  for (const GoldItem& g : gold.items) {
    if (!in_folds(g, folds)) continue;
    selected[issue_key(g.repo, g.number)] = &g;
    for (const auto& [dim, value] : g.values) {
      ++with_dimension[dim];
      ++labeled[{dim, value}];
    }
  }
  std::map<std::string, RuleEval> by_rule;
  for (const RuleFiring& f : firings) {
    auto it = selected.find(issue_key(f.repo, f.number));
    if (it == selected.end()) continue;
    auto gv = it->second->values.find(f.dimension);
    if (gv == it->second->values.end()) continue;
    RuleEval& r = by_rule[f.rule_id];
    r.rule_id = f.rule_id;
    r.dimension = f.dimension;
    r.label = f.label;
    ++r.fired;
    if (gv->second == f.label) ++r.agreed;
  }
  std::vector<RuleEval> out;
  for (auto& [id, r] : by_rule) {
    r.precision = static_cast<double>(r.agreed) / r.fired;
    long n = with_dimension[r.dimension];
    r.base_rate = n ? static_cast<double>(labeled[{r.dimension, r.label}]) / n : 0;
    r.lift = r.base_rate > 0 ? r.precision / r.base_rate : 0;
    out.push_back(r);
  }
  std::sort(out.begin(), out.end(), [](const RuleEval& a, const RuleEval& b) {
    return std::tie(a.dimension, a.label, b.precision, a.rule_id) <
           std::tie(b.dimension, b.label, a.precision, b.rule_id);
  });
  return out;
}

nlohmann::json rule_evals_json(const std::vector<RuleEval>& rules) {
  nlohmann::json out = nlohmann::json::array();
  for (const RuleEval& r : rules)
    out.push_back({{"rule", r.rule_id},
                   {"dimension", r.dimension},
                   {"label", r.label},
                   {"fired", r.fired},
                   {"agreed", r.agreed},
                   {"precision", r.precision},
                   {"base_rate", r.base_rate},
                   {"lift", r.lift}});
  return out;
}

std::string rule_evals_text(const std::vector<RuleEval>& rules) {
  std::size_t width = 4;
  for (const RuleEval& r : rules) width = std::max(width, r.rule_id.size());
  std::string out =
      "\nrules (fired on gold issues; precision = gold label is the rule's label; "
      "lift = precision / base rate)\n";
  char line[512];
  std::snprintf(line, sizeof line, "  %-*s %6s %6s %9s %9s %6s\n", static_cast<int>(width), "rule",
                "fired", "agreed", "precision", "base_rate", "lift");
  out += line;
  for (const RuleEval& r : rules) {
    std::snprintf(line, sizeof line, "  %-*s %6ld %6ld %9.3f %9.3f %6.2f%s\n",
                  static_cast<int>(width), r.rule_id.c_str(), r.fired, r.agreed, r.precision,
                  r.base_rate, r.lift,
                  r.fired == 1 ? "  one issue" : (r.lift < 1 ? "  below chance" : ""));
    out += line;
  }
  return out;
}

}  // namespace convfail::classifier
