#include "classifier/run_store.h"

#include <chrono>
#include <set>

#include <nlohmann/json.hpp>

#include "classifier/evaluation.h"
#include "classifier/extract.h"
#include "classifier/issue_text.h"
#include "core/error.h"

namespace convfail::classifier {

namespace {

// One issue's results, computed outside any transaction and written later in a slice.
struct Computed {
  std::int64_t issue_id = 0;
  std::vector<DimensionResult> results;
  std::vector<Evidence> evidence;
  Extractions facts;
};

// What the run row records of how it was made: the rules' settings, the repositories, the model
// and the predictor of each dimension, the execution evidence's weights.
nlohmann::json run_params(const RuleSet& rules, const std::vector<std::string>& repos,
                          const ClassifyOptions& options, const RunSummary& summary,
                          const ExecutionWeights& weights) {
  nlohmann::json params;
  params["smoothing"] = rules.settings.smoothing;
  for (const auto& [dim, s] : rules.settings.dimensions)
    params["dimensions"][dim] = {{"min_confidence", s.min_confidence}, {"margin", s.margin}};
  params["rule_count"] = rules.rules.size();
  if (!repos.empty()) params["repos"] = repos;
  if (options.model)
    params["model"] = {{"id", options.model->id}, {"rules_hash", options.model->rules_hash}};
  params["predictors"] = summary.predictors;
  if (!options.predictors.empty()) params["predictors_overridden"] = options.predictors;
  if (options.verdicts)
    params["execution"] = {{"issues_with_verdicts", options.verdicts->size()},
                           {"weights", execution_weights_json(weights)}};
  return params;
}

// The writer of one run's rows: labels, execution evidence, rule evidence, extracted facts.
class RunWriter {
 public:
  RunWriter(Db& db, std::int64_t run_id)
      : run_id_(run_id),
        label_(db,
               "INSERT INTO classifier_labels (run_id, issue_id, dimension, label, subtype, "
               "confidence, scores_json) VALUES (?,?,?,?,?,?,?)"),
        evidence_(db,
                  "INSERT INTO classifier_evidence (run_id, issue_id, dimension, label, subtype, "
                  "rule_id, field, field_index, span_start, span_end, matched_text, weight) "
                  "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"),
        fact_(db,
              "INSERT OR IGNORE INTO classifier_extractions (run_id, issue_id, kind, value) "
              "VALUES (?,?,?,?)"),
        exec_(db,
              "INSERT INTO classifier_execution_evidence (run_id, issue_id, dimension, label, "
              "kind, weight, repro_run_id, run_kind, verdict, step, signature, summary) "
              "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)") {}

  void write(const Computed& one) {
    for (const DimensionResult& r : one.results) {
      const Decision& d = r.decision;
      label_.bind(1, run_id_).bind(2, one.issue_id).bind(3, d.dimension);
      label_.bind(4, d.label).bind(5, d.subtype).bind(6, d.confidence).bind(7, r.scores.dump());
      label_.run();
      for (const ExecutionEvidence& e : r.execution) write_execution(one.issue_id, e);
    }
    for (const Evidence& e : one.evidence) {
      evidence_.bind(1, run_id_).bind(2, one.issue_id).bind(3, e.dimension);
      evidence_.bind(4, e.label);
      if (e.subtype.empty())
        evidence_.bind_null(5);
      else
        evidence_.bind(5, e.subtype);
      evidence_.bind(6, e.rule_id).bind(7, field_name(e.field)).bind(8, e.field_index);
      evidence_.bind(9, static_cast<std::int64_t>(e.span_start));
      evidence_.bind(10, static_cast<std::int64_t>(e.span_end));
      evidence_.bind(11, e.matched_text).bind(12, e.weight);
      evidence_.run();
    }
    for (const auto& [kind, value] : one.facts) {
      fact_.bind(1, run_id_).bind(2, one.issue_id).bind(3, kind).bind(4, value);
      fact_.run();
    }
  }

 private:
  void write_execution(std::int64_t issue_id, const ExecutionEvidence& e) {
    exec_.bind(1, run_id_).bind(2, issue_id).bind(3, e.dimension);
    exec_.bind(4, e.label).bind(5, e.key).bind(6, e.weight).bind(7, e.verdict.repro_run_id);
    exec_.bind(8, e.verdict.kind).bind(9, e.verdict.verdict);
    auto text = [](const std::string& t) {
      return t.empty() ? std::nullopt : std::optional<std::string>(t);
    };
    exec_.bind(10, text(e.verdict.step)).bind(11, text(e.verdict.signature));
    exec_.bind(12, e.summary);
    exec_.run();
  }

  std::int64_t run_id_;
  Stmt label_, evidence_, fact_, exec_;
};

// One issue through the rules, the chosen predictors and its execution evidence; counted in
// the summary.
Computed classify_one(const Engine& engine, const IssueText& issue, const ClassifyOptions& options,
                      const ExecutionWeights& weights, RunSummary& summary) {
  Segments segments = segment_issue(issue);
  Classification c = engine.classify(issue, segments);
  std::vector<ExecutionEvidence> execution;
  if (options.verdicts) {
    auto v = options.verdicts->find(issue.issue_id);
    if (v != options.verdicts->end()) execution = execution_evidence(v->second, weights);
  }
  summary.execution_issues += !execution.empty();
  Computed one;
  one.issue_id = issue.issue_id;
  one.results = predict_issue(engine, segments, c, options.model, options.predictors, execution);
  for (const DimensionResult& r : one.results) {
    const Decision& d = r.decision;
    if (d.abstained) ++summary.abstained[d.dimension];
    ++summary.counts[d.dimension][d.label.value_or("")];
    if (!r.execution.empty() && r.without_execution != d.label)
      ++summary.moved_by_execution[d.dimension];
  }
  one.evidence = std::move(c.evidence);
  one.facts = extract_facts(segments);
  return one;
}

// The chosen predictors' confidence is calibrated already (out-of-fold, see DimensionModel): the
// run keeps it as is and takes each predictor's cross-fitted threshold, which the hybrid source
// uses.
void store_model_thresholds(Db& db, const TrainedModel& model, const RunSummary& summary) {
  std::vector<FittedCalibration> fitted;
  for (const DimensionModel& dm : model.dimensions) {
    OutOfFoldCalibration cal = dm.calibration_of(summary.predictors.at(dm.dimension));
    if (!cal.method.empty()) fitted.push_back({dm.dimension, Calibration{}, cal.threshold, dm.n});
  }
  if (!fitted.empty())
    store_calibration(db, summary.run_id, fitted,
                      "trained model " + std::to_string(model.id) + " (out-of-fold, cross-fitted)",
                      kCalibrationTarget);
}

}  // namespace

RunSummary classify_and_store(Db& db, const Engine& engine, const std::vector<std::string>& repos,
                              const ClassifyOptions& options) {
  const TrainedModel* model = options.model;
  auto issues = load_issue_texts(db, repos);
  if (issues.empty())
    throw UserError(repos.empty() ? "no stored issues (run import first)"
                                  : "no stored issues of " + nlohmann::json(repos).dump() +
                                        " (run import first)");
  const RuleSet& rules = engine.rules();
  const ExecutionWeights weights = model ? model->execution : default_execution_weights();

  RunSummary summary;
  for (const auto& dim : engine.taxonomy().dimensions()) {
    const DimensionModel* dm = model ? model->dimension(dim.id) : nullptr;
    std::string p = predictor_for(dim.id, model, options.predictors);
    summary.predictors[dim.id] = dm ? p : kPredictorRules;
  }
  summary.rules_hash = rules.hash;
  summary.rule_count = rules.rules.size();
  summary.model_id = model ? model->id : 0;
  // Short transactions (WriteSlices): issues are classified outside any transaction, and each
  // ~100 ms of results is written in one brief transaction, so a label post or another job gets
  // the lock in between. The run is invisible (in_progress = 1: readers take the latest run with 0)
  // until its last slice clears in_progress.
  {
    Transaction tx(db);
    Stmt run(db,
             "INSERT INTO classifier_runs (rules_hash, rules_dir, params_json, in_progress) "
             "VALUES (?,?,?,1)");
    run.bind(1, rules.hash).bind(2, rules.dir);
    run.bind(3, run_params(rules, repos, options, summary, weights).dump()).run();
    summary.run_id = db.last_insert_id();
    tx.commit();
  }
  RunWriter writer(db, summary.run_id);
  std::vector<Computed> pending;
  auto batch_started = std::chrono::steady_clock::now();
  auto write_pending = [&](bool last) {
    Transaction tx(db);
    for (const Computed& one : pending) writer.write(one);
    if (last) {
      Stmt finish(db,
                  "UPDATE classifier_runs SET finished_at = "
                  "strftime('%Y-%m-%dT%H:%M:%SZ','now'), issue_count = ?, in_progress = 0 "
                  "WHERE id = ?");
      finish.bind(1, static_cast<std::int64_t>(issues.size())).bind(2, summary.run_id).run();
    }
    tx.commit();
    pending.clear();
    batch_started = std::chrono::steady_clock::now();
  };
  std::int64_t done = 0;
  const auto total = static_cast<std::int64_t>(issues.size());
  for (const IssueText& issue : issues) {
    pending.push_back(classify_one(engine, issue, options, weights, summary));
    ++done;
    if (std::chrono::steady_clock::now() - batch_started >= std::chrono::milliseconds(100))
      write_pending(false);
    if (options.progress) options.progress(done, total);
  }
  write_pending(true);
  if (model) store_model_thresholds(db, *model, summary);
  summary.issues = done;
  return summary;
}

}  // namespace convfail::classifier
