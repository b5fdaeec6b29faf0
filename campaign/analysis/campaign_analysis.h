// The analysis of one stored campaign (schema 0012: campaigns, campaign_models, campaign_groups):
// outcomes per source and node count (the study's Table 11), operator types per outcome and
// their enrichment (Table 15, with Fisher + Benjamini-Hochberg), operator sequences (the study's
// path method made deterministic, n-grams along edges), test-suite coverage and the failure
// groups. Reads the tables only; campaign/report/campaign_report.h prints it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/analysis/campaign_breakdown.h"
#include "campaign/analysis/enrichment.h"
#include "campaign/analysis/op_graph.h"
#include "campaign/analysis/sequences.h"
#include "core/db.h"

namespace convfail::campaign {

struct CampaignAnalysisOptions {
  std::vector<std::string> suites;  // test-suite folders, or onnx-node (test_suite.h)
  SequenceOptions sequences;
  int ngram_min = 2, ngram_max = 6;
  std::size_t max_walks = 200000;  // per model, for the n-grams
  long min_models = 2;             // features held by fewer models are not tested
  double alpha = 0.05;             // q below it counts as significant
};

struct OutcomeRow {
  std::string label;   // "synthetic, 30 nodes", "torchvision, 101-200 nodes", "synthetic, all"
  std::string source;  // synthetic | torchvision | script
  bool total = false;  // a per-source or overall total
  // The row's node counts: a synthetic row's count twice, a bin's ends (no high end over 1000);
  // none for totals and unknown counts.
  std::optional<long> nodes_min, nodes_max;
  std::map<std::string, long> counts;  // outcome -> models (every outcome present)
  long models = 0;
};

struct GroupRow {
  std::int64_t id = 0;
  std::string outcome, signature;
  std::string message;  // its representative's message as said ("" when none): what people read
  long size = 0;
  std::optional<long> original_nodes, minimised_nodes;
  bool minimised = false;              // the graph below is the minimised model's
  std::vector<std::string> operators;  // distinct types of that graph (or the representative's)
  std::vector<std::string> sequence;   // its longest source->sink path (first in node order)
  std::optional<std::vector<std::string>>
      candidates;                             // matched issues; empty = new; none = not matched yet
  std::map<std::string, std::string> labels;  // symptom/cause/stage
  std::vector<bool> in_suite;  // per suite: one test model holds every path of the graph
  // Its latest `convfail bisect --group` per model: "fixed in 1.21.0", "still failing in ..."
  // (reports::runtime_history_text); none when not bisected.
  std::optional<std::string> runtime;
  std::optional<OpGraph> graph;
};

struct SuiteCoverage {
  std::string name, dir;
  long models = 0, unreadable = 0;
  std::vector<std::string> operator_types;
  long failing_types = 0, failing_types_covered = 0;  // types of failing models
  std::vector<std::string> failing_types_missing;     // in failing models, in no test model
  long reduced = 0, reduced_missing = 0;              // reduced sequences in no test model
  long ngrams = 0, ngrams_missing = 0;                // enriched n-grams in no test model
  long groups = 0, groups_missing = 0;                // failure groups in no test model
};

struct CampaignAnalysis {
  std::int64_t campaign_id = 0;
  std::string created_at, finished_at;
  nlohmann::json config, versions;
  long models = 0;
  std::vector<OutcomeRow> outcomes;
  // Operator types (Table 15): mismatched, failing to convert or run, correct (success).
  std::vector<std::string> ops_mismatched, ops_failing, ops_correct;
  long models_with_graph = 0, failing_with_graph = 0, passing_with_graph = 0;
  long failing_without_graph = 0;  // failures with no stored graph: not in the operator tables
  long unreadable_graphs = 0;      // stored graphs that do not parse (left out, never an error)
  double mean_nodes_failing = 0, mean_nodes_passing = 0;  // ONNX nodes, models with a graph
  std::vector<Enrichment> operators;                      // any failure vs success
  std::vector<Enrichment> operators_mismatch;             // mismatch vs success
  SequenceStudy sequences;
  std::vector<Enrichment> ngrams;  // any failure vs success
  long ngram_capped_models = 0;
  std::vector<GroupRow> groups;
  std::vector<SuiteCoverage> suites;
  CampaignBreakdown breakdown;  // tolerance curve, kernels, per family and per type
  CampaignAnalysisOptions options;
};

// UserError when the campaign does not exist or a stored graph is malformed (naming the row).
CampaignAnalysis analyse_campaign(Db& db, std::int64_t campaign_id,
                                  const CampaignAnalysisOptions& options = {});

}  // namespace convfail::campaign
