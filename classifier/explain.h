// `explain`: one issue's labels, confidences and score tables, and the evidence with the matched
// text highlighted in its context.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "classifier/engine.h"
#include "classifier/execution_evidence.h"
#include "classifier/model.h"

namespace convfail::classifier {

// What else explain weighs besides the rules: the trained model `classify` would use (null: the
// rules alone) and the issue's stored verdicts (execution evidence).
struct ExplainContext {
  const TrainedModel* model = nullptr;
  std::vector<ExecutionVerdict> verdicts;
};

// color: ANSI highlight (terminal); otherwise the match is marked as >>text<<. Per dimension the
// rules' decision on the text, its scores and evidence; then the execution evidence
// ("confirmed by re-execution: ...") and, with a model or execution evidence, what classify
// decides ("classify: LABEL by PREDICTOR") and the label the text alone gives.
std::string explain_issue(const Engine& engine, const IssueText& issue, bool color,
                          const ExplainContext& context = {});

// The same as one JSON object: repo, number, title, rules_hash, rules (count), fields, bytes;
// dimensions: {dimension: {label, subtype, abstained, confidence, scores: {label: score},
// evidence: [{rule, label, subtype, weight, field, field_index, span_start, span_end,
// matched_text}], execution: [{kind, dimension, label, weight, repro_run_id, run_kind, verdict,
// step, signature, summary}], classified: {label, subtype, confidence, predictor,
// without_execution}}} (label/subtype null when absent); model_id (0: none); facts: [{kind,
// value}].
nlohmann::json explain_json(const Engine& engine, const IssueText& issue,
                            const ExplainContext& context = {});

// The text around [start, end) of `text`, `context` bytes each side (cut at UTF-8 boundaries,
// newlines shown as spaces), with the span highlighted.
std::string highlight_in_context(const std::string& text, std::size_t start, std::size_t end,
                                 std::size_t context, bool color);

}  // namespace convfail::classifier
