#include "classifier/evaluation.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "core/csv.h"
#include "core/error.h"
#include "core/text.h"

namespace convfail::classifier {

using labeling::Evaluation;
using labeling::IssueLabels;
using labeling::LabelPairs;

const char* const kAbstained = "(abstained)";

namespace {

std::string fixed(double v, int digits = 3) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

std::set<int> parse_fold_list(const std::string& text) {
  std::set<int> out;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    part = trim(part, " \t");
    try {
      std::size_t used = 0;
      auto dash = part.find('-');
      if (dash != std::string::npos && dash > 0) {
        int a = std::stoi(part.substr(0, dash)), b = std::stoi(part.substr(dash + 1), &used);
        if (used != part.size() - dash - 1 || a > b || a < 0) throw std::invalid_argument("");
        for (int f = a; f <= b; ++f) out.insert(f);
      } else {
        int f = std::stoi(part, &used);
        if (used != part.size() || f < 0) throw std::invalid_argument("");
        out.insert(f);
      }
    } catch (const std::exception&) {
      throw UsageError("--folds: \"" + text +
                       "\" is not a list of fold numbers like 0,1,2,3 or 0-3");
    }
  }
  if (out.empty()) throw UsageError("--folds: empty fold list");
  return out;
}

GoldSet load_gold_file(const std::string& path, const Taxonomy& taxonomy) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + ": cannot read");
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<CsvRecord> rows;
  try {
    rows = parse_csv(ss.str());
  } catch (const UserError& e) {
    throw UserError(path + ":" + e.what());
  }
  if (rows.empty()) throw UserError(path + ": empty file");
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < rows[0].fields.size(); ++i) col[trim(rows[0].fields[i], " \t")] = i;
  for (const char* need : {"repo", "number"})
    if (!col.count(need)) throw UserError(path + ":1: missing column \"" + need + "\"");
  std::vector<std::string> dims;
  for (const auto& d : taxonomy.dimensions())
    if (col.count(d.id)) dims.push_back(d.id);
  if (dims.empty()) throw UserError(path + ":1: no label column (symptom, cause or stage)");
  GoldSet gold;
  gold.source = path;
  gold.has_folds = col.count("fold") > 0;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto& [line, cells] = rows[r];
    auto where = path + ":" + std::to_string(line) + ": ";
    auto cell = [&](const std::string& name) -> std::string {
      auto it = col.find(name);
      return it != col.end() && it->second < cells.size() ? trim(cells[it->second], " \t") : "";
    };
    GoldItem item;
    item.repo = cell("repo");
    try {
      std::size_t used = 0;
      item.number = std::stoll(cell("number"), &used);
      if (used != cell("number").size()) throw std::invalid_argument("");
    } catch (const std::exception&) {
      throw UserError(where + "\"" + cell("number") + "\" is not an issue number");
    }
    if (item.repo.find('/') == std::string::npos)
      throw UserError(where + "\"" + item.repo + "\" is not OWNER/NAME");
    if (gold.has_folds && !cell("fold").empty()) {
      try {
        item.fold = std::stoi(cell("fold"));
      } catch (const std::exception&) {
        throw UserError(where + "\"" + cell("fold") + "\" is not a fold number");
      }
    }
    for (const auto& d : dims) {
      std::string v = cell(d);
      if (v.empty()) continue;
      auto id = taxonomy.normalize_label(d, v);
      if (!id) throw UserError(where + "unknown " + d + " label \"" + v + "\"");
      item.values[d] = *id;
    }
    std::string sub = cell("subtype");
    if (!sub.empty() && item.values.count("cause")) {
      auto id = taxonomy.normalize_subtype(item.values["cause"], sub);
      if (!id) throw UserError(where + "unknown subtype \"" + sub + "\"");
      item.values["subtype"] = *id;
    }
    gold.items.push_back(std::move(item));
  }
  return gold;
}

GoldSet gold_from_labels(const std::string& source, const std::vector<IssueLabels>& labels) {
  GoldSet gold;
  gold.source = source;
  for (const auto& l : labels) gold.items.push_back({l.repo, l.number, std::nullopt, l.values});
  return gold;
}

DimensionEval evaluate_dimension(
    const Taxonomy& taxonomy, const std::string& dimension,
    const std::vector<std::pair<std::string, std::optional<std::string>>>& gold_and_predicted) {
  const auto& dim = taxonomy.dimension(dimension);
  DimensionEval d;
  d.dimension = dimension;
  LabelPairs all, covered;
  for (const auto& [g, p] : gold_and_predicted) {
    bool abstained = !p || (dim.abstain_label && *p == *dim.abstain_label);
    std::string predicted = p ? *p : kAbstained;
    all.emplace_back(g, predicted);
    if (!abstained) covered.emplace_back(g, predicted);
  }
  d.n = static_cast<long>(all.size());
  d.covered = static_cast<long>(covered.size());
  d.coverage = d.n ? static_cast<double>(d.covered) / d.n : 0;
  d.all = labeling::evaluate(all);
  if (!covered.empty()) {
    Evaluation c = labeling::evaluate(covered);
    d.covered_accuracy = c.accuracy;
    d.covered_kappa = c.kappa.kappa;
  }
  double f1 = 0;
  int labels = 0;
  for (const auto& [label, s] : d.all.per_label) {
    if (label == kAbstained) continue;
    f1 += s.f1;
    ++labels;
  }
  d.macro_f1 = labels ? f1 / labels : 0;
  return d;
}

IssueKey issue_key(const std::string& repo, std::int64_t number) {
  return {lower(repo), number};
}

bool in_folds(const GoldItem& item, const std::set<int>& folds) {
  return folds.empty() || (item.fold && folds.count(*item.fold));
}

EvalReport evaluate_run(Db& db, const Taxonomy& taxonomy, const GoldSet& gold,
                        std::optional<std::int64_t> run_id, const std::set<int>& folds) {
  if (!folds.empty() && !gold.has_folds)
    throw UsageError("--folds needs gold labels with a fold column (" + gold.source + " has none)");
  EvalReport report;
  report.gold_source = gold.source;
  report.folds.assign(folds.begin(), folds.end());
  if (run_id) {
    Stmt st(db, "SELECT count(*) FROM classifier_runs WHERE id = ?");
    st.bind(1, *run_id);
    st.step();
    if (st.int64(0) == 0) throw UserError("no classifier run " + std::to_string(*run_id));
    report.run_id = *run_id;
  } else {
    report.run_id = db.scalar("SELECT coalesce(max(id), 0) FROM classifier_runs");
    if (report.run_id == 0) throw UserError("no classifier run yet (run classify first)");
  }
  auto predicted = labeling::load_classifier_labels(db, report.run_id);
  std::map<IssueKey, const IssueLabels*> by_issue;
  for (const auto& p : predicted) by_issue[issue_key(p.repo, p.number)] = &p;
  std::map<std::string, std::vector<std::pair<std::string, std::optional<std::string>>>> pairs;
  for (const GoldItem& g : gold.items) {
    if (!in_folds(g, folds)) continue;
    ++report.gold_items;
    auto it = by_issue.find(issue_key(g.repo, g.number));
    if (it == by_issue.end()) {
      ++report.missing;
      continue;
    }
    for (const auto& dim : taxonomy.dimensions()) {
      auto gv = g.values.find(dim.id);
      if (gv == g.values.end()) continue;
      auto pv = it->second->values.find(dim.id);
      std::optional<std::string> p;
      if (pv != it->second->values.end()) p = pv->second;
      pairs[dim.id].emplace_back(gv->second, p);
    }
  }
  if (report.gold_items == report.missing)
    throw UserError("none of the " + std::to_string(report.gold_items) +
                    " gold issues is in classifier run " + std::to_string(report.run_id));
  for (const auto& dim : taxonomy.dimensions())
    report.dimensions.push_back(evaluate_dimension(taxonomy, dim.id, pairs[dim.id]));
  return report;
}

nlohmann::json eval_report_json(const EvalReport& r) {
  nlohmann::json out;
  out["run_id"] = r.run_id;
  out["gold"] = r.gold_source;
  out["folds"] = r.folds;
  out["gold_issues"] = r.gold_items;
  out["missing"] = r.missing;
  nlohmann::json dims = nlohmann::json::object();
  for (const auto& d : r.dimensions) {
    nlohmann::json per = nlohmann::json::object();
    for (const auto& [label, s] : d.all.per_label)
      per[label] = {{"support", s.support},     {"predicted", s.predicted}, {"correct", s.correct},
                    {"precision", s.precision}, {"recall", s.recall},       {"f1", s.f1}};
    dims[d.dimension] = {
        {"n", d.n},
        {"accuracy", d.all.accuracy},
        {"macro_f1", d.macro_f1},
        {"kappa", d.all.kappa.kappa},
        {"kappa_ci", {d.all.kappa.ci_low, d.all.kappa.ci_high}},
        {"coverage", d.coverage},
        {"covered", d.covered},
        {"covered_accuracy", d.covered_accuracy},
        {"covered_kappa", d.covered_kappa},
        {"per_label", per},
        {"confusion", {{"labels", d.all.matrix.labels}, {"counts", d.all.matrix.counts}}}};
  }
  out["dimensions"] = dims;
  return out;
}

std::string eval_report_text(const EvalReport& r) {
  std::ostringstream out;
  out << "classifier run " << r.run_id << " vs " << r.gold_source;
  if (!r.folds.empty()) {
    out << " (folds ";
    for (std::size_t i = 0; i < r.folds.size(); ++i) out << (i ? "," : "") << r.folds[i];
    out << ")";
  }
  out << ": " << r.gold_items << " gold issues";
  if (r.missing) out << ", " << r.missing << " not in the run (left out)";
  out << "\n";
  for (const auto& d : r.dimensions) {
    out << "\n"
        << d.dimension << ": n=" << d.n << " accuracy=" << fixed(d.all.accuracy)
        << " macro_f1=" << fixed(d.macro_f1) << " kappa=" << fixed(d.all.kappa.kappa) << " ["
        << fixed(d.all.kappa.ci_low) << ", " << fixed(d.all.kappa.ci_high) << "]"
        << " coverage=" << fixed(d.coverage) << " covered_accuracy=" << fixed(d.covered_accuracy)
        << " covered_kappa=" << fixed(d.covered_kappa) << "\n";
    std::size_t w = 12;
    for (const auto& [label, s] : d.all.per_label) w = std::max(w, label.size());
    char buf[256];
    std::snprintf(buf, sizeof buf, "  %-*s %7s %9s %9s %6s %6s\n", static_cast<int>(w), "label",
                  "support", "predicted", "precision", "recall", "f1");
    out << buf;
    for (const auto& [label, s] : d.all.per_label) {
      std::snprintf(buf, sizeof buf, "  %-*s %7ld %9ld %9s %6s %6s\n", static_cast<int>(w),
                    label.c_str(), s.support, s.predicted, fixed(s.precision).c_str(),
                    fixed(s.recall).c_str(), fixed(s.f1).c_str());
      out << buf;
    }
    out << "  confusion (rows gold, columns predicted):\n";
    const auto& m = d.all.matrix;
    for (std::size_t i = 0; i < m.labels.size(); ++i) {
      std::snprintf(buf, sizeof buf, "  %2zu %-*s", i, static_cast<int>(w), m.labels[i].c_str());
      out << buf;
      for (long c : m.counts[i]) {
        std::snprintf(buf, sizeof buf, " %4ld", c);
        out << buf;
      }
      out << "\n";
    }
    out << "     " << std::string(w, ' ');
    for (std::size_t j = 0; j < m.labels.size(); ++j) {
      std::snprintf(buf, sizeof buf, " %4zu", j);
      out << buf;
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace convfail::classifier
