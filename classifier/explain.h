// `explain`: one issue's labels, confidences and score tables, and the evidence with the matched
// text highlighted in its context.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "classifier/engine.h"

namespace convfail::classifier {

// color: ANSI highlight (terminal); otherwise the match is marked as >>text<<.
std::string explain_issue(const Engine& engine, const IssueText& issue, bool color);

// The same as one JSON object: repo, number, title, rules_hash, rules (count), fields, bytes;
// dimensions: {dimension: {label, subtype, abstained, confidence, scores: {label: score},
// evidence: [{rule, label, subtype, weight, field, field_index, span_start, span_end,
// matched_text}]}} (label/subtype null when absent); facts: [{kind, value}].
nlohmann::json explain_json(const Engine& engine, const IssueText& issue);

// The text around [start, end) of `text`, `context` bytes each side (cut at UTF-8 boundaries,
// newlines shown as spaces), with the span highlighted.
std::string highlight_in_context(const std::string& text, std::size_t start, std::size_t end,
                                 std::size_t context, bool color);

}  // namespace convfail::classifier
