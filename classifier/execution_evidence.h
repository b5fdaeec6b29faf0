// Execution evidence: what re-executing an issue's repro (an attached model, or its script through
// torch.onnx.export) showed, used as rule-like evidence for symptom and stage. A script that
// crashes inside torch.onnx.export confirms `crash`; a converted model that fails in ONNX Runtime,
// the checker or parsing, or gives wrong outputs, confirms `wrong_model` (the taxonomy's line
// between the two); the crash's signature can name the stage (an unsupported operator:
// node_conversion; tracing: load_model; a graph pass: optimization; a file that does not parse or
// protobuf limits: export).
//
// Weights: each kind of evidence has a prior precision (how often the gold label should be its
// label, from the taxonomy's definitions, documented in execution_kinds()). `train` calibrates it
// on the training issues that have verdicts: precision = (agreed + m * prior) / (n + m) with
// m = kExecutionPriorStrength pseudo-issues, and the weight is that precision's log-odds minus the
// label's base rate's (a log-likelihood ratio; base rate Laplace-smoothed), within [0, 4];
// without a trained model the base rate is taken as 0.5. The weight is added to the label's score
// by the rules (like a fired rule) and to the label's log-probability by the model and the blend.
//
// The classifier never reads repro's tables: callers pass the verdicts in as plain data.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "classifier/engine.h"

namespace convfail::classifier {

// One stored verdict of an issue (repro's latest verdicts, copied by the caller).
struct ExecutionVerdict {
  std::int64_t repro_run_id = 0;
  std::string kind;  // model | script
  std::string
      verdict;  // crash_reproduced | wrong_output_reproduced | not_reproduced | not_runnable
  std::string step;
  std::string signature;
};
using ExecutionVerdicts = std::map<std::int64_t, std::vector<ExecutionVerdict>>;  // by issue id

struct ExecutionKind {
  std::string key;
  std::string dimension;
  std::string label;
  double prior = 0;  // prior precision
  std::string means;
};
const std::vector<ExecutionKind>& execution_kinds();

inline constexpr double kExecutionPriorStrength = 4;

struct ExecutionWeight {
  ExecutionKind kind;
  double base = 0.5;  // the label's base rate in the training gold
  long n = 0;         // training issues with this evidence and a gold label
  long agreed = 0;    // of those, gold label == the evidence's label
  double weight = 0;
};
struct ExecutionWeights {
  std::map<std::string, ExecutionWeight> by_key;
  long issues = 0;  // training issues with at least one piece of evidence
};

ExecutionWeights default_execution_weights();
// verdicts[i]: example i's verdicts; gold[dimension][i]: its gold label ("" = none).
ExecutionWeights calibrate_execution_weights(
    const std::vector<std::vector<ExecutionVerdict>>& verdicts,
    const std::map<std::string, std::vector<std::string>>& gold);

struct ExecutionEvidence {
  std::string key;
  std::string dimension;
  std::string label;
  double weight = 0;
  ExecutionVerdict verdict;
  std::string summary;  // e.g. "confirmed by re-execution: crash in ONNX Runtime, signature ..."
};

// The kinds of evidence the verdicts give (each kind once per issue: the first verdict giving
// it, in the given order); kinds whose weight is 0 are left out.
std::vector<ExecutionEvidence> execution_evidence(const std::vector<ExecutionVerdict>& verdicts,
                                                  const ExecutionWeights& weights);

// The rules' votes of the evidence (one per piece).
std::vector<Vote> execution_votes(const std::vector<ExecutionEvidence>& evidence);

// p over `labels` with the evidence of `dimension` applied: p(l) * exp(weights toward l),
// renormalised. Evidence for a label outside `labels` is ignored.
std::vector<double> apply_execution(const std::vector<double>& p,
                                    const std::vector<std::string>& labels,
                                    const std::vector<ExecutionEvidence>& evidence,
                                    const std::string& dimension);

// "confirmed by re-execution: ..." for one verdict giving evidence (raw text: escape to print).
std::string execution_summary(const ExecutionVerdict& v);

nlohmann::json execution_weights_json(const ExecutionWeights& w);
// Reads what execution_weights_json wrote over the defaults (unknown keys ignored).
ExecutionWeights execution_weights_from_json(const nlohmann::json& j);
nlohmann::json execution_evidence_json(const ExecutionEvidence& e);

}  // namespace convfail::classifier
