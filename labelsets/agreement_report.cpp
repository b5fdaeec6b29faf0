#include "labelsets/agreement_report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/error.h"
#include "labeling/label_source.h"
#include "labeling/manual_labels.h"
#include "labelsets/source_labels.h"

namespace convfail::labelsets {

using labeling::cohen_kappa;
using labeling::confusion;
using labeling::fleiss_kappa;
using labeling::IssueLabels;
using labeling::LabelPairs;
using labeling::LabelSource;
using labeling::load_annotator_labels;
using labeling::manual_annotators;
using labeling::manual_dimensions;

namespace {

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

LabelsByIssue labels_by_issue(const std::vector<IssueLabels>& labels) {
  LabelsByIssue out;
  for (const IssueLabels& l : labels) {
    auto& values = out[l.issue_id];
    for (const auto& [dim, value] : l.values)
      if (!value.empty()) values[dim] = value;
  }
  return out;
}

PairAgreement pair_agreement(const std::string& a, const LabelsByIssue& a_labels,
                             const std::string& b, const LabelsByIssue& b_labels,
                             const std::string& dimension) {
  LabelPairs pairs;
  for (const auto& [issue, values] : a_labels) {
    auto x = values.find(dimension);
    if (x == values.end()) continue;
    auto other = b_labels.find(issue);
    if (other == b_labels.end()) continue;
    auto y = other->second.find(dimension);
    if (y != other->second.end()) pairs.emplace_back(x->second, y->second);
  }
  return {a, b, cohen_kappa(pairs), confusion(pairs)};
}

namespace {

// One source's labels; an annotator without any row is named with the annotators there are.
LabelsByIssue load_source(Db& db, const std::string& name, const std::vector<std::string>& known) {
  LabelSource source = LabelSource::parse(name);
  if (!source.manual()) return labels_by_issue(load_label_set(db, source));
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw UserError("annotator \"" + name +
                    "\" has no labels; annotators: " + (list.empty() ? "none" : list));
  }
  return labels_by_issue(load_annotator_labels(db, name));
}

// The labels every source gave to each issue all of them labeled in `dim`.
std::vector<std::vector<std::string>> common_ratings(const std::vector<LabelsByIssue>& sets,
                                                     const std::string& dim) {
  std::vector<std::vector<std::string>> ratings;
  for (const auto& [issue, values] : sets[0]) {
    std::vector<std::string> item;
    for (const auto& m : sets) {
      auto it = m.find(issue);
      if (it == m.end() || !it->second.count(dim)) break;
      item.push_back(it->second.at(dim));
    }
    if (item.size() == sets.size()) ratings.push_back(std::move(item));
  }
  return ratings;
}

}  // namespace

AgreementReport compute_agreement(Db& db, const std::vector<std::string>& sources,
                                  const std::optional<std::string>& dimension) {
  if (sources.size() < 2) throw UsageError("--annotators needs at least two names (A,B)");
  const auto& all_dims = manual_dimensions();
  if (dimension && std::find(all_dims.begin(), all_dims.end(), *dimension) == all_dims.end())
    throw UsageError("--dimension must be one of symptom, cause, subtype, stage");
  auto known = manual_annotators(db);
  std::vector<LabelsByIssue> sets;
  for (const auto& name : sources) sets.push_back(load_source(db, name, known));
  return agreement_of(sources, sets, dimension);
}

AgreementReport agreement_of(const std::vector<std::string>& names,
                             const std::vector<LabelsByIssue>& sets,
                             const std::optional<std::string>& dimension) {
  if (names.size() < 2 || names.size() != sets.size())
    throw UsageError("--annotators needs at least two names (A,B)");
  AgreementReport report;
  report.annotators = names;
  for (const auto& dim : manual_dimensions()) {
    if (dimension && dim != *dimension) continue;
    DimensionAgreement d;
    d.dimension = dim;
    std::vector<std::vector<std::string>> ratings = common_ratings(sets, dim);
    d.n = static_cast<long>(ratings.size());
    long all_same = 0;
    for (const auto& item : ratings)
      all_same += std::all_of(item.begin(), item.end(),
                              [&](const std::string& x) { return x == item.front(); });
    d.agreement = d.n ? static_cast<double>(all_same) / d.n : 0;
    for (std::size_t a = 0; a < names.size(); ++a)
      for (std::size_t b = a + 1; b < names.size(); ++b)
        d.pairs.push_back(pair_agreement(names[a], sets[a], names[b], sets[b], dim));
    if (names.size() >= 3 && d.n > 0) d.fleiss_kappa = fleiss_kappa(ratings);
    if (d.n > 0 || dimension) report.dimensions.push_back(std::move(d));
  }
  if (report.dimensions.empty()) throw UserError("the sources have labeled no issue in common");
  return report;
}

std::string format_agreement(const AgreementReport& report) {
  std::ostringstream out;
  std::string names;
  for (const auto& a : report.annotators) names += (names.empty() ? "" : ", ") + a;
  out << "Agreement of " << names << " (issues all of them labeled)\n";
  for (const auto& d : report.dimensions) {
    out << "\n" << d.dimension << ": n = " << d.n;
    if (d.n == 0) {
      out << " (no issue labeled by all)\n";
      continue;
    }
    out << ", agreement = " << fixed(100 * d.agreement, 1) << "%";
    if (report.annotators.size() == 2) {
      const KappaResult& k = d.pairs.front().kappa;
      out << ", κ = " << fixed(k.kappa, 2) << " (95% CI " << fixed(k.ci_low, 2) << " to "
          << fixed(k.ci_high, 2) << ")\n";
    } else {
      out << ", Fleiss' κ = " << fixed(*d.fleiss_kappa, 2) << "\n";
    }
    for (const auto& p : d.pairs) {
      if (report.annotators.size() > 2)
        out << "  " << p.a << " vs " << p.b << ": n = " << p.kappa.n
            << ", agreement = " << fixed(100 * p.kappa.observed, 1)
            << "%, κ = " << fixed(p.kappa.kappa, 2) << " (95% CI " << fixed(p.kappa.ci_low, 2)
            << " to " << fixed(p.kappa.ci_high, 2) << ")\n";
      // Confusion table: rows are the first annotator's labels, columns the second's, each
      // named as the web names them (no c1, c2 codes to look up).
      const std::vector<std::string>& labels = p.matrix.labels;
      std::size_t width = p.a.size() + 1 + p.b.size();
      for (const auto& l : labels) width = std::max(width, l.size());
      std::vector<std::size_t> column(labels.size());
      for (std::size_t j = 0; j < labels.size(); ++j) {
        column[j] = labels[j].size();
        for (std::size_t i = 0; i < labels.size(); ++i)
          column[j] = std::max(column[j], std::to_string(p.matrix.counts[i][j]).size());
      }
      auto pad = [](const std::string& text, std::size_t w) {
        return std::string(w > text.size() ? w - text.size() : 0, ' ') + text;
      };
      out << "  " << pad(p.a + "\\" + p.b, width);
      for (std::size_t j = 0; j < labels.size(); ++j) out << "  " << pad(labels[j], column[j]);
      out << "\n";
      for (std::size_t i = 0; i < labels.size(); ++i) {
        out << "  " << pad(labels[i], width);
        for (std::size_t j = 0; j < labels.size(); ++j)
          out << "  " << pad(std::to_string(p.matrix.counts[i][j]), column[j]);
        out << "\n";
      }
    }
  }
  return out.str();
}

nlohmann::json agreement_json(const AgreementReport& report) {
  nlohmann::json dims = nlohmann::json::object();
  auto kappa_json = [](const KappaResult& k) {
    return nlohmann::json{
        {"n", k.n},   {"agreement", k.observed},      {"expected", k.expected}, {"kappa", k.kappa},
        {"se", k.se}, {"ci95", {k.ci_low, k.ci_high}}};
  };
  for (const auto& d : report.dimensions) {
    nlohmann::json j = {{"n", d.n}, {"agreement", d.agreement}};
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& p : d.pairs) {
      nlohmann::json pj = kappa_json(p.kappa);
      pj["a"] = p.a;
      pj["b"] = p.b;
      pj["confusion"] = {{"labels", p.matrix.labels}, {"counts", p.matrix.counts}};
      pairs.push_back(pj);
    }
    if (report.annotators.size() == 2) {
      const KappaResult& k = d.pairs.front().kappa;
      j["kappa"] = k.kappa;
      j["ci95"] = {k.ci_low, k.ci_high};
      j["confusion"] = pairs.front()["confusion"];
    } else {
      j["pairs"] = pairs;
      j["kappa"] = d.fleiss_kappa ? nlohmann::json(*d.fleiss_kappa) : nlohmann::json();
      j["ci95"] = nullptr;
      j["fleiss_kappa"] = j["kappa"];
    }
    dims[d.dimension] = j;
  }
  return {{"annotators", report.annotators}, {"dimensions", dims}};
}

}  // namespace convfail::labelsets
