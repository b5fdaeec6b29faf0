#include "classifier/run_store.h"

#include <chrono>
#include <set>

#include <nlohmann/json.hpp>

#include "classifier/evaluation.h"
#include "classifier/extract.h"
#include "classifier/issue_text.h"
#include "classifier/run_status.h"
#include "core/error.h"

namespace convfail::classifier {

namespace {

// The run's parameters as params_json keeps them; fills the summary's predictors.
nlohmann::json run_params(const Engine& engine, const std::vector<std::string>& repos,
                          const ClassifyOptions& options, RunSummary& summary) {
  const TrainedModel* model = options.model;
  const RuleSet& rules = engine.rules();
  nlohmann::json params;
  params["smoothing"] = rules.settings.smoothing;
  for (const auto& [dim, s] : rules.settings.dimensions)
    params["dimensions"][dim] = {{"min_confidence", s.min_confidence}, {"margin", s.margin}};
  params["rule_count"] = rules.rules.size();
  if (!repos.empty()) params["repos"] = repos;
  if (model) params["model"] = {{"id", model->id}, {"rules_hash", model->rules_hash}};
  for (const auto& dim : engine.taxonomy().dimensions()) {
    const DimensionModel* dm = model ? model->dimension(dim.id) : nullptr;
    std::string p = predictor_for(dim.id, model, options.predictors);
    summary.predictors[dim.id] = dm ? p : kPredictorRules;
  }
  params["predictors"] = summary.predictors;
  if (!options.predictors.empty()) params["predictors_overridden"] = options.predictors;
  if (options.verdicts) {
    const ExecutionWeights weights = model ? model->execution : default_execution_weights();
    params["execution"] = {{"issues_with_verdicts", options.verdicts->size()},
                           {"weights", execution_weights_json(weights)}};
  }
  return params;
}

// Inserts the run, in progress and owned by this process (schema 0018: a later classify tells
// a run whose process died).
std::int64_t insert_run(Db& db, const RuleSet& rules, const nlohmann::json& params,
                        std::size_t planned) {
  RunOwner me = this_process();
  Transaction tx(db);
  Stmt run(db,
           "INSERT INTO classifier_runs (rules_hash, rules_dir, params_json, in_progress, pid, "
           "pid_started, host, planned_issues) VALUES (?,?,?,1,?,?,?,?)");
  run.bind(1, rules.hash).bind(2, rules.dir).bind(3, params.dump());
  run.bind(4, me.pid).bind(5, me.started).bind(6, me.host);
  run.bind(7, static_cast<std::int64_t>(planned)).run();
  std::int64_t id = db.last_insert_id();
  tx.commit();
  return id;
}

// One issue's output of a run, computed outside any transaction.
struct Computed {
  std::int64_t issue_id = 0;
  std::vector<DimensionResult> results;
  std::vector<Evidence> evidence;
  Extractions facts;
};

// The statements that write a run's rows.
class RunRows {
 public:
  RunRows(Db& db, std::int64_t run_id) : run_id_(run_id), db_(db) {}
  void write(const Computed& one);

 private:
  std::int64_t run_id_;
  Db& db_;
  Stmt label{db_,
             "INSERT INTO classifier_labels (run_id, issue_id, dimension, label, subtype, "
             "confidence, scores_json) VALUES (?,?,?,?,?,?,?)"};
  Stmt evidence{db_,
                "INSERT INTO classifier_evidence (run_id, issue_id, dimension, label, subtype, "
                "rule_id, field, field_index, span_start, span_end, matched_text, weight) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"};
  Stmt fact{db_,
            "INSERT OR IGNORE INTO classifier_extractions (run_id, issue_id, kind, value) "
            "VALUES (?,?,?,?)"};
  Stmt exec{db_,
            "INSERT INTO classifier_execution_evidence (run_id, issue_id, dimension, label, kind, "
            "weight, repro_run_id, run_kind, verdict, step, signature, summary) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"};
};

void RunRows::write(const Computed& one) {
  for (const DimensionResult& r : one.results) {
    const Decision& d = r.decision;
    label.bind(1, run_id_).bind(2, one.issue_id).bind(3, d.dimension);
    label.bind(4, d.label).bind(5, d.subtype).bind(6, d.confidence).bind(7, r.scores.dump());
    label.run();
    for (const ExecutionEvidence& e : r.execution) {
      exec.bind(1, run_id_).bind(2, one.issue_id).bind(3, e.dimension);
      exec.bind(4, e.label).bind(5, e.key).bind(6, e.weight).bind(7, e.verdict.repro_run_id);
      exec.bind(8, e.verdict.kind).bind(9, e.verdict.verdict);
      auto text = [](const std::string& t) {
        return t.empty() ? std::nullopt : std::optional<std::string>(t);
      };
      exec.bind(10, text(e.verdict.step)).bind(11, text(e.verdict.signature));
      exec.bind(12, e.summary);
      exec.run();
    }
  }
  for (const Evidence& e : one.evidence) {
    evidence.bind(1, run_id_).bind(2, one.issue_id).bind(3, e.dimension);
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
  for (const auto& [kind, value] : one.facts) {
    fact.bind(1, run_id_).bind(2, one.issue_id).bind(3, kind).bind(4, value);
    fact.run();
  }
}

}  // namespace

RunSummary classify_and_store(Db& db, const Engine& engine, const std::vector<std::string>& repos,
                              const ClassifyOptions& options) {
  const TrainedModel* model = options.model;
  const auto& progress = options.progress;
  auto issues = load_issue_texts(db, repos);
  if (issues.empty())
    throw UserError(repos.empty() ? "no stored issues (run import first)"
                                  : "no stored issues of " + nlohmann::json(repos).dump() +
                                        " (run import first)");
  const RuleSet& rules = engine.rules();
  RunSummary summary;
  summary.abandoned_runs = mark_abandoned_runs(db);
  nlohmann::json params = run_params(engine, repos, options, summary);
  const ExecutionWeights weights = model ? model->execution : default_execution_weights();
  summary.rules_hash = rules.hash;
  summary.rule_count = rules.rules.size();
  summary.model_id = model ? model->id : 0;
  // Short transactions (WriteSlices): issues are classified outside any transaction, and each
  // ~100 ms of results is written in one brief transaction, so a label post or another job gets
  // the lock in between. The run is invisible (in_progress = 1: readers take the latest run with 0)
  // until its last slice clears in_progress.
  summary.run_id = insert_run(db, rules, params, issues.size());
  RunRows rows(db, summary.run_id);
  std::vector<Computed> pending;
  auto batch_started = std::chrono::steady_clock::now();
  auto write_pending = [&](bool last) {
    Transaction tx(db);
    for (const Computed& one : pending) rows.write(one);
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
    one.results = predict_issue(engine, segments, c, model, options.predictors, execution);
    for (const DimensionResult& r : one.results) {
      const Decision& d = r.decision;
      if (d.abstained) ++summary.abstained[d.dimension];
      ++summary.counts[d.dimension][d.label.value_or("")];
      if (!r.execution.empty() && r.without_execution != d.label)
        ++summary.moved_by_execution[d.dimension];
    }
    one.evidence = std::move(c.evidence);
    one.facts = extract_facts(segments);
    pending.push_back(std::move(one));
    ++done;
    if (std::chrono::steady_clock::now() - batch_started >= std::chrono::milliseconds(100))
      write_pending(false);
    if (progress) progress(done, total);
  }
  write_pending(true);
  if (model) {
    // The chosen predictors' confidence is calibrated already (out-of-fold, see DimensionModel):
    // the run keeps it as is and takes each predictor's cross-fitted threshold, which the hybrid
    // source uses.
    std::vector<FittedCalibration> fitted;
    for (const DimensionModel& dm : model->dimensions) {
      OutOfFoldCalibration cal = dm.calibration_of(summary.predictors.at(dm.dimension));
      if (!cal.method.empty()) fitted.push_back({dm.dimension, Calibration{}, cal.threshold, dm.n});
    }
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
