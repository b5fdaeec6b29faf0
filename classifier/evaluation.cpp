#include "classifier/evaluation.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "classifier/latest_run.h"
#include "classifier/run_labels.h"
#include "core/csv.h"
#include "core/error.h"
#include "core/text.h"
#include "labeling/label_source.h"

namespace convfail::classifier {

using labeling::Evaluation;
using labeling::IssueLabels;
using labeling::LabelPairs;

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
    // Not a structured binding: C++17 lets no lambda capture one (clang refuses, GCC accepts).
    const std::int64_t line = rows[r].line;
    const std::vector<std::string>& cells = rows[r].fields;
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

namespace {

// One gold issue of one dimension met in the run.
struct GoldRow {
  std::optional<int> fold;
  std::string gold;
  std::string predicted;  // kAbstained for an abstention of symptom/cause
  double raw = 0;
  // Breaks ties of confidence in the selective figures: the predictor's own score behind a
  // calibrated confidence (scores_json "rank"), else the confidence.
  double rank = 0;
  bool evaluated = false;  // in the selected folds
  std::string origin;      // hybrid sources: "manual" or "automatic"
};

std::int64_t resolve_run(Db& db, std::optional<std::int64_t> run_id) {
  if (run_id) {
    Stmt st(db, "SELECT count(*) FROM classifier_runs WHERE id = ?");
    st.bind(1, *run_id);
    st.step();
    if (st.int64(0) == 0) throw UserError("no classifier run " + std::to_string(*run_id));
    return *run_id;
  }
  std::int64_t id = latest_run_id(db);
  if (id == 0) throw UserError("no classifier run yet (run classify first)");
  return id;
}

// Gold rows per dimension for every gold item in the run; counts the selected ones in `report`.
std::map<std::string, std::vector<GoldRow>> gold_rows(Db& db, const Taxonomy& taxonomy,
                                                      const GoldSet& gold, std::int64_t run_id,
                                                      const std::set<int>& folds,
                                                      EvalReport* report,
                                                      const EvaluatedLabels* labels = nullptr) {
  auto predicted = labels ? labels->labels : classifier::run_labels(db, run_id);
  // A calibrated confidence pools the predictor's scores into steps; the score it was
  // calibrated from keeps their order (stored by classify as "rank").
  std::map<std::pair<std::int64_t, std::string>, double> ranks;
  if (!labels) {
    Stmt st(db,
            "SELECT issue_id, dimension, json_extract(scores_json, '$.rank') FROM "
            "classifier_labels WHERE run_id = ? AND json_valid(scores_json) AND "
            "json_type(scores_json, '$.rank') IN ('real', 'integer')");
    st.bind(1, run_id);
    while (st.step()) ranks[{st.int64(0), st.text(1)}] = st.real(2);
  }
  std::map<IssueKey, const IssueLabels*> by_issue;
  for (const auto& p : predicted) by_issue[issue_key(p.repo, p.number)] = &p;
  std::map<std::string, std::vector<GoldRow>> rows;
  for (const GoldItem& g : gold.items) {
    bool selected = in_folds(g, folds);
    if (selected && report) ++report->gold_items;
    auto it = by_issue.find(issue_key(g.repo, g.number));
    if (it == by_issue.end()) {
      if (selected && report) ++report->missing;
      continue;
    }
    for (const auto& dim : taxonomy.dimensions()) {
      auto gv = g.values.find(dim.id);
      if (gv == g.values.end()) continue;
      GoldRow r;
      r.fold = g.fold;
      r.gold = gv->second;
      auto pv = it->second->values.find(dim.id);
      r.predicted = pv != it->second->values.end() ? pv->second : kAbstained;
      auto cv = it->second->confidence.find(dim.id);
      r.raw = cv != it->second->confidence.end() ? cv->second : 0;
      auto rk = ranks.find({it->second->issue_id, dim.id});
      r.rank = rk != ranks.end() ? rk->second : r.raw;
      auto ov = it->second->origin.find(dim.id);
      if (ov != it->second->origin.end()) r.origin = ov->second;
      r.evaluated = selected;
      rows[dim.id].push_back(std::move(r));
    }
  }
  return rows;
}

// Calibrated confidence of each row: isotonic fit on the rows of `fit_folds` other than the row's
// own fold (all of them for a row without fold). Raw confidence when fit_folds is empty.
std::vector<double> cross_validated(const std::vector<GoldRow>& rows,
                                    const std::set<int>& fit_folds, bool only_evaluated) {
  std::vector<double> out(rows.size());
  std::map<std::optional<int>, Calibration> fitted;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (only_evaluated && !rows[i].evaluated) continue;
    if (fit_folds.empty()) {
      out[i] = rows[i].raw;
      continue;
    }
    auto key = rows[i].fold;
    auto it = fitted.find(key);
    if (it == fitted.end()) {
      std::vector<std::pair<double, bool>> samples;
      for (const auto& r : rows)
        if (r.fold && fit_folds.count(*r.fold) && r.fold != key)
          samples.emplace_back(r.raw, r.gold == r.predicted);
      it = fitted.emplace(key, fit_isotonic(samples)).first;
    }
    out[i] = it->second.empty() ? rows[i].raw : it->second.apply(rows[i].raw);
  }
  return out;
}

}  // namespace

namespace {

// When the run's labels come from a trained model fitted on (some of) `fit_folds`, a calibration
// fitted there is in-sample: says so.
std::string in_sample_warning(Db& db, std::int64_t run_id, const std::set<int>& fit_folds) {
  Stmt st(db,
          "SELECT m.id, m.folds_json FROM classifier_runs r JOIN trained_models m "
          "ON m.id = json_extract(r.params_json, '$.model.id') WHERE r.id = ?");
  st.bind(1, run_id);
  if (!st.step()) return "";
  std::vector<int> trained;
  try {
    trained = nlohmann::json::parse(st.text(1)).get<std::vector<int>>();
  } catch (const nlohmann::json::exception&) {
    return "";
  }
  bool overlap = trained.empty();
  for (int f : trained) overlap = overlap || fit_folds.count(f) > 0;
  if (!overlap) return "";
  return "classifier run " + std::to_string(run_id) + " uses trained model " +
         std::to_string(st.int64(0)) +
         ", fitted on the --fit-folds issues: this calibration is in-sample (the model's own "
         "confidence is already calibrated out-of-fold; leave out --fit-folds)";
}

}  // namespace

EvalReport evaluate_run(Db& db, const Taxonomy& taxonomy, const GoldSet& gold,
                        std::optional<std::int64_t> run_id, const std::set<int>& folds,
                        const SelectiveOptions& selective, const EvaluatedLabels* labels) {
  if (!folds.empty() && !gold.has_folds)
    throw UsageError("--folds needs gold labels with a fold column (" + gold.source + " has none)");
  if (!selective.fit_folds.empty() && !gold.has_folds)
    throw UsageError("--fit-folds needs gold labels with a fold column (" + gold.source +
                     " has none)");
  EvalReport report;
  report.gold_source = gold.source;
  report.folds.assign(folds.begin(), folds.end());
  report.fit_folds.assign(selective.fit_folds.begin(), selective.fit_folds.end());
  report.calibrated = !selective.fit_folds.empty();
  if (labels) {
    report.source = labels->source;
  } else {
    report.run_id = resolve_run(db, run_id);
    report.source = "classifier run " + std::to_string(report.run_id);
    if (!selective.fit_folds.empty())
      report.warning = in_sample_warning(db, report.run_id, selective.fit_folds);
  }
  auto rows = gold_rows(db, taxonomy, gold, report.run_id, folds, &report, labels);
  if (report.gold_items == report.missing)
    throw UserError("none of the " + std::to_string(report.gold_items) + " gold issues is in " +
                    (labels ? "label source " + labels->source : report.source));
  for (const auto& dim : taxonomy.dimensions()) {
    const auto& dim_rows = rows[dim.id];
    std::vector<std::pair<std::string, std::optional<std::string>>> pairs;
    std::vector<ScoredLabel> scored;
    auto confidence = cross_validated(dim_rows, selective.fit_folds, true);
    for (std::size_t i = 0; i < dim_rows.size(); ++i) {
      const GoldRow& r = dim_rows[i];
      if (!r.evaluated) continue;
      std::optional<std::string> p;
      if (r.predicted != kAbstained) p = r.predicted;
      pairs.emplace_back(r.gold, p);
      scored.push_back({r.gold, r.predicted, confidence[i], r.rank});
    }
    DimensionEval d = evaluate_dimension(taxonomy, dim.id, pairs);
    for (const GoldRow& r : dim_rows) {
      if (!r.evaluated) continue;
      d.manual += r.origin == "manual";
      d.automatic += r.origin == "automatic";
    }
    d.selective = selective_eval(scored, selective.target_accuracy, selective.human_share,
                                 selective.share_thresholds);
    report.dimensions.push_back(std::move(d));
  }
  return report;
}

std::vector<FittedCalibration> fit_run_calibration(Db& db, const Taxonomy& taxonomy,
                                                   const GoldSet& gold, std::int64_t run_id,
                                                   const std::set<int>& fit_folds,
                                                   double target_accuracy) {
  if (fit_folds.empty() || !gold.has_folds)
    throw UsageError("storing a calibration needs --fit-folds and gold labels with folds");
  auto rows = gold_rows(db, taxonomy, gold, resolve_run(db, run_id), fit_folds, nullptr);
  std::vector<FittedCalibration> out;
  for (const auto& dim : taxonomy.dimensions()) {
    FittedCalibration f;
    f.dimension = dim.id;
    const auto& dim_rows = rows[dim.id];
    std::vector<std::pair<double, bool>> samples, cv;
    auto confidence = cross_validated(dim_rows, fit_folds, true);
    for (std::size_t i = 0; i < dim_rows.size(); ++i) {
      if (!dim_rows[i].evaluated) continue;
      bool right = dim_rows[i].gold == dim_rows[i].predicted;
      samples.emplace_back(dim_rows[i].raw, right);
      cv.emplace_back(confidence[i], right);
    }
    f.samples = static_cast<long>(samples.size());
    if (samples.empty()) continue;
    f.calibration = fit_isotonic(samples);
    f.threshold = threshold_for_accuracy(cv, target_accuracy);
    out.push_back(std::move(f));
  }
  return out;
}

void store_calibration(Db& db, std::int64_t run_id, const std::vector<FittedCalibration>& fitted,
                       const std::string& fitted_on, double target_accuracy) {
  auto labels = classifier::run_labels(db, run_id);
  Transaction tx(db);
  for (const char* sql : {"DELETE FROM classifier_calibrations WHERE run_id = ?",
                          "DELETE FROM classifier_calibrated WHERE run_id = ?"}) {
    Stmt del(db, sql);
    del.bind(1, run_id);
    del.run();
  }
  Stmt cal(
      db,
      "INSERT INTO classifier_calibrations (run_id, dimension, method, blocks_json, threshold, "
      "target_accuracy, fitted_on, samples) VALUES (?, ?, 'isotonic', ?, ?, ?, ?, ?)");
  Stmt prob(db,
            "INSERT INTO classifier_calibrated (run_id, issue_id, dimension, probability) "
            "VALUES (?, ?, ?, ?)");
  for (const auto& f : fitted) {
    nlohmann::json blocks = nlohmann::json::array();
    for (const auto& [from, p] : f.calibration.blocks) blocks.push_back({from, p});
    cal.bind(1, run_id).bind(2, f.dimension).bind(3, blocks.dump());
    if (f.threshold)
      cal.bind(4, *f.threshold);
    else
      cal.bind_null(4);
    cal.bind(5, target_accuracy).bind(6, fitted_on).bind(7, static_cast<std::int64_t>(f.samples));
    cal.run();
    for (const auto& l : labels) {
      auto c = l.confidence.find(f.dimension);
      if (c == l.confidence.end()) continue;
      prob.bind(1, run_id).bind(2, l.issue_id).bind(3, f.dimension);
      prob.bind(4, f.calibration.apply(c->second));
      prob.run();
    }
  }
  tx.commit();
}

nlohmann::json eval_report_json(const EvalReport& r) {
  nlohmann::json out;
  out["run_id"] = r.run_id;
  out["source"] = r.source;
  if (!r.warning.empty()) out["warning"] = r.warning;
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
        {"cells", {{"manual", d.manual}, {"automatic", d.automatic}}},
        {"per_label", per},
        {"confusion", {{"labels", d.all.matrix.labels}, {"counts", d.all.matrix.counts}}}};
  }
  out["dimensions"] = dims;
  out["calibration"] = {{"method", r.calibrated ? "isotonic" : "none (raw confidence)"},
                        {"fit_folds", r.fit_folds},
                        {"ece_bins", 10}};
  nlohmann::json selective = nlohmann::json::object();
  for (const auto& d : r.dimensions) {
    const SelectiveEval& s = d.selective;
    nlohmann::json one = nlohmann::json::object();
    for (const auto& p : s.points)
      one["coverage_" + std::to_string(p.percent)] = {
          {"n", p.n}, {"accuracy", p.accuracy}, {"kappa", p.kappa}, {"threshold", p.threshold}};
    one["ece"] = s.ece;
    one["target"] = {
        {"accuracy", s.target_accuracy},
        {"threshold", s.target_threshold ? nlohmann::json(*s.target_threshold) : nlohmann::json()},
        {"coverage", s.target_coverage},
        {"reached", s.target_reached}};
    if (s.human_share)
      one["hybrid"] = {{"human_share", *s.human_share},
                       {"human", s.human_labeled},
                       {"automatic", s.n - s.human_labeled},
                       {"kappa", s.hybrid_kappa}};
    nlohmann::json shares = nlohmann::json::array();
    for (const ThresholdShares& t : s.thresholds)
      shares.push_back({{"threshold", t.threshold},
                        {"correct", t.correct},
                        {"wrong", t.wrong},
                        {"abstained", t.abstained}});
    one["thresholds"] = shares;
    selective[d.dimension] = one;
  }
  out["selective"] = selective;
  return out;
}

std::string eval_report_text(const EvalReport& r) {
  std::ostringstream out;
  out << terminal_safe(r.source) << " vs " << terminal_safe(r.gold_source);
  if (!r.folds.empty()) {
    out << " (folds ";
    for (std::size_t i = 0; i < r.folds.size(); ++i) out << (i ? "," : "") << r.folds[i];
    out << ")";
  }
  out << ": " << r.gold_items << " gold issues";
  if (r.calibrated) {
    out << "; confidence calibrated (isotonic) on folds ";
    for (std::size_t i = 0; i < r.fit_folds.size(); ++i) out << (i ? "," : "") << r.fit_folds[i];
    out << ", each issue's fit leaving out its own fold";
  }
  if (r.missing)
    out << ", " << r.missing << " not in the " << (r.run_id ? "run" : "label source")
        << " (left out)";
  out << "\n";
  // Without a run, r.source is the label source as given (checked by LabelSource already):
  // hybrid and hybrid:NAME count cells, an annotator named "hybrids" does not.
  const bool hybrid = r.run_id == 0 && labeling::LabelSource::parse(r.source).hybrid();
  for (const auto& d : r.dimensions) {
    out << "\n"
        << d.dimension << ": n=" << d.n << " accuracy=" << fixed(d.all.accuracy)
        << " macro_f1=" << fixed(d.macro_f1) << " kappa=" << fixed(d.all.kappa.kappa) << " ["
        << fixed(d.all.kappa.ci_low) << ", " << fixed(d.all.kappa.ci_high) << "]"
        << " coverage=" << fixed(d.coverage) << " covered_accuracy=" << fixed(d.covered_accuracy)
        << " covered_kappa=" << fixed(d.covered_kappa) << "\n";
    if (hybrid)
      out << "  cells: " << d.manual << " manual, " << d.automatic << " automatic, "
          << d.n - d.manual - d.automatic << " unlabeled\n";
    const SelectiveEval& sel = d.selective;
    out << "  selective: ece=" << fixed(sel.ece) << " ("
        << (r.calibrated ? "isotonic calibration" : "raw confidence") << ")\n";
    for (const auto& p : sel.points)
      out << "  coverage_" << p.percent << ": n=" << p.n << " accuracy=" << fixed(p.accuracy)
          << " kappa=" << fixed(p.kappa) << " threshold=" << fixed(p.threshold) << "\n";
    out << "  target accuracy " << fixed(sel.target_accuracy) << ": ";
    if (sel.target_threshold)
      out << "threshold=" << fixed(*sel.target_threshold)
          << " coverage=" << fixed(sel.target_coverage) << " reached=" << fixed(sel.target_reached)
          << "\n";
    else
      out << "not reached at any threshold\n";
    if (sel.human_share)
      out << "  hybrid (least confident " << fixed(*sel.human_share * 100, 0)
          << "% labeled by people): human=" << sel.human_labeled
          << " automatic=" << (sel.n - sel.human_labeled) << " kappa=" << fixed(sel.hybrid_kappa)
          << "\n";
    if (!sel.thresholds.empty()) {
      out << "  at confidence threshold t (>= t answered, else abstained; shares of " << sel.n
          << "):\n     t  correct    wrong  abstained\n";
      char line[96];
      for (const ThresholdShares& t : sel.thresholds) {
        std::snprintf(line, sizeof line, "  %4.2f  %7.3f  %7.3f  %9.3f\n", t.threshold, t.correct,
                      t.wrong, t.abstained);
        out << line;
      }
    }
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
