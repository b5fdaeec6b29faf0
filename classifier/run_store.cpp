#include "classifier/run_store.h"

#include <set>

#include <nlohmann/json.hpp>

#include "classifier/evaluation.h"
#include "classifier/extract.h"
#include "classifier/issue_text.h"
#include "core/error.h"

namespace convfail::classifier {

RunSummary classify_and_store(Db& db, const Engine& engine, const std::vector<std::string>& repos,
                              const std::function<void(std::int64_t, std::int64_t)>& progress,
                              const TrainedModel* model) {
  auto issues = load_issue_texts(db, repos);
  if (issues.empty())
    throw UserError(repos.empty() ? "no stored issues (run import first)"
                                  : "no stored issues of " + nlohmann::json(repos).dump() +
                                        " (run import first)");
  const RuleSet& rules = engine.rules();
  nlohmann::json params;
  params["smoothing"] = rules.settings.smoothing;
  for (const auto& [dim, s] : rules.settings.dimensions)
    params["dimensions"][dim] = {{"min_confidence", s.min_confidence}, {"margin", s.margin}};
  params["rule_count"] = rules.rules.size();
  if (!repos.empty()) params["repos"] = repos;
  if (model) params["model"] = {{"id", model->id}, {"rules_hash", model->rules_hash}};

  RunSummary summary;
  summary.rules_hash = rules.hash;
  summary.rule_count = rules.rules.size();
  summary.model_id = model ? model->id : 0;
  Transaction tx(db);
  Stmt run(db, "INSERT INTO classifier_runs (rules_hash, rules_dir, params_json) VALUES (?,?,?)");
  run.bind(1, rules.hash).bind(2, rules.dir).bind(3, params.dump()).run();
  summary.run_id = db.last_insert_id();
  Stmt label(db,
             "INSERT INTO classifier_labels (run_id, issue_id, dimension, label, subtype, "
             "confidence, scores_json) VALUES (?,?,?,?,?,?,?)");
  Stmt evidence(db,
                "INSERT INTO classifier_evidence (run_id, issue_id, dimension, label, subtype, "
                "rule_id, field, field_index, span_start, span_end, matched_text, weight) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
  Stmt fact(db,
            "INSERT OR IGNORE INTO classifier_extractions (run_id, issue_id, kind, value) "
            "VALUES (?,?,?,?)");
  std::int64_t done = 0;
  const auto total = static_cast<std::int64_t>(issues.size());
  for (const IssueText& issue : issues) {
    Segments segments = segment_issue(issue);
    Classification c = engine.classify(issue, segments);
    std::set<std::string> features;
    if (model) features = issue_features(segments, c);
    for (Decision d : c.decisions) {
      nlohmann::json scores = nlohmann::json::object();
      for (const auto& [l, s] : d.scores) scores[l] = s;
      nlohmann::json sj = {{"scores", scores}, {"abstained", d.abstained}};
      if (const DimensionModel* dm = model ? model->dimension(d.dimension) : nullptr) {
        Prediction p = predict(*model, *dm, features);
        nlohmann::json top = nlohmann::json::array();
        for (const auto& [f, w] : p.top_features) top.push_back({{"feature", f}, {"weight", w}});
        nlohmann::json rules_label = d.label ? nlohmann::json(*d.label) : nlohmann::json(nullptr);
        sj["rules"] = {
            {"label", rules_label}, {"confidence", d.confidence}, {"abstained", d.abstained}};
        double confidence =
            dm->calibration.empty() ? p.probability : dm->calibration.apply(p.probability);
        sj["model"] = {{"id", model->id},
                       {"probabilities", p.probabilities},
                       {"probability", p.probability},
                       {"calibrated", !dm->calibration.empty()},
                       {"top_features", top}};
        if (d.label != p.label) d.subtype.reset();  // the rules' subtype belongs to their cause
        d.label = p.label;
        d.confidence = confidence;
        d.abstained = false;
        sj["abstained"] = false;
      }
      label.bind(1, summary.run_id).bind(2, issue.issue_id).bind(3, d.dimension);
      label.bind(4, d.label).bind(5, d.subtype).bind(6, d.confidence).bind(7, sj.dump());
      label.run();
      if (d.abstained) ++summary.abstained[d.dimension];
      ++summary.counts[d.dimension][d.label.value_or("")];
    }
    for (const Evidence& e : c.evidence) {
      evidence.bind(1, summary.run_id).bind(2, issue.issue_id).bind(3, e.dimension);
      evidence.bind(4, e.label);
      if (e.subtype.empty())
        evidence.bind_null(5);
      else
        evidence.bind(5, e.subtype);
      evidence.bind(6, e.rule_id).bind(7, field_name(e.field)).bind(8, e.field_index);
      evidence.bind(9, static_cast<std::int64_t>(e.span_start));
      evidence.bind(10, static_cast<std::int64_t>(e.span_end));
      evidence.bind(11, e.matched_text).bind(12, e.weight);
      evidence.run();
    }
    for (const auto& [kind, value] : extract_facts(segments)) {
      fact.bind(1, summary.run_id).bind(2, issue.issue_id).bind(3, kind).bind(4, value);
      fact.run();
    }
    ++done;
    if (progress) progress(done, total);
  }
  Stmt finish(db,
              "UPDATE classifier_runs SET finished_at = strftime('%Y-%m-%dT%H:%M:%SZ','now'), "
              "issue_count = ? WHERE id = ?");
  finish.bind(1, done).bind(2, summary.run_id).run();
  tx.commit();
  if (model) {
    // The model's confidence is calibrated already (out-of-fold, see DimensionModel): the run
    // keeps it as is and takes the model's cross-fitted threshold, which the hybrid source uses.
    std::vector<FittedCalibration> fitted;
    for (const DimensionModel& dm : model->dimensions)
      if (!dm.calibration_method.empty())
        fitted.push_back({dm.dimension, Calibration{}, dm.threshold, dm.n});
    if (!fitted.empty())
      store_calibration(
          db, summary.run_id, fitted,
          "trained model " + std::to_string(model->id) + " (out-of-fold, cross-fitted)",
          kCalibrationTarget);
  }
  summary.issues = done;
  return summary;
}

}  // namespace convfail::classifier
