#include "campaign/analysis/campaign_analysis.h"

#include <algorithm>
#include <set>

#include "campaign/analysis/test_suite.h"
#include "campaign/outcomes.h"
#include "campaign/store/campaign_store.h"
#include "core/error.h"
#include "reports/report_data.h"
#include "repro/bisect.h"
#include "repro/bisect_history.h"

namespace convfail::campaign {
namespace {

using nlohmann::json;

struct Model {
  std::int64_t seq = 0;
  std::string source, outcome;
  std::optional<long> nodes;
  std::optional<OpGraph> graph;
};

// Node-count bins of the non-synthetic sources (one model per architecture: exact counts would
// make a row per model).
// *order gets the bin's first count, so the rows of one bin are one row, in bin order.
// *low and *high get the bin's ends (none for unknown; no high end over 1000).
std::string node_bin(std::optional<long> nodes, long* order, std::optional<long>* low,
                     std::optional<long>* high) {
  *order = -1;
  if (!nodes) return "unknown nodes";
  static const long kEdges[] = {50, 100, 200, 500, 1000};
  long lo = 1;
  for (long hi : kEdges) {
    *order = lo;
    if (*nodes <= hi) {
      *low = lo, *high = hi;
      return std::to_string(lo) + "-" + std::to_string(hi) + " nodes";
    }
    lo = hi + 1;
  }
  *order = lo;
  *low = lo;
  return "over 1000 nodes";
}

// A stored row's graph. A row whose graph is malformed (not JSON of its shape, edges out of range:
// stored by an older convfail or merged from elsewhere) has none: counted, never a failed report.
std::optional<OpGraph> graph_of(const StoredModel& m, const std::string& where, long* unreadable) {
  auto bad = [&](const char* column) {
    return std::find(m.malformed.begin(), m.malformed.end(), column) != m.malformed.end();
  };
  try {
    if (bad("graph_json")) throw UserError(where + " graph_json: malformed");
    if (!m.graph.is_null()) return op_graph_from_json(m.graph, where + " graph_json");
    if (bad("operators_json")) throw UserError(where + " operators_json: malformed");
    if (!m.operators.is_null())
      return op_graph_from_operators(m.operators, where + " operators_json");
  } catch (const UserError&) {
    ++*unreadable;
  }
  return std::nullopt;
}

std::vector<std::string> sorted(const std::set<std::string>& s) {
  return {s.begin(), s.end()};
}

// The longest source->sink path (first of the longest in path order) as operator types.
std::vector<std::string> longest_path(const OpGraph& g, std::size_t max_paths) {
  std::vector<int> best;
  for (const auto& p : simple_paths(g, max_paths))
    if (p.size() > best.size()) best = p;
  std::vector<std::string> ops;
  for (int v : best) ops.push_back(g.ops[static_cast<std::size_t>(v)]);
  return ops;
}

void load_outcomes(CampaignAnalysis& a, const std::vector<Model>& models) {
  // source -> row label -> counts; synthetic by exact node count, the rest binned.
  std::map<std::string, std::map<std::pair<long, std::string>, OutcomeRow>> rows;
  std::map<std::string, OutcomeRow> per_source;
  OutcomeRow total;
  total.label = "Total";
  total.total = true;
  auto blank = [](OutcomeRow& r) {
    for (const auto& o : outcome_classes()) r.counts.emplace(o, 0);
  };
  blank(total);
  for (const auto& m : models) {
    a.failing_without_graph += !m.graph && is_failure(m.outcome);  // not in the operator tables
    const bool synthetic = m.source == "synthetic";
    long order = m.nodes ? *m.nodes : -1;
    std::optional<long> low = m.nodes, high = m.nodes;
    std::string label = synthetic
                            ? (m.nodes ? std::to_string(*m.nodes) + " nodes" : "unknown nodes")
                            : node_bin(m.nodes, &order, &low, &high);
    auto& row = rows[m.source][{order, label}];
    if (row.label.empty()) {
      row.label = m.source + ", " + label;
      row.source = m.source;
      row.nodes_min = low;
      row.nodes_max = high;
      blank(row);
    }
    auto& src = per_source[m.source];
    if (src.label.empty()) {
      src.label = m.source + ", all";
      src.source = m.source;
      src.total = true;
      blank(src);
    }
    for (OutcomeRow* r : {&row, &src, &total}) {
      ++r->counts[m.outcome];
      ++r->models;
    }
  }
  for (auto& [source, by_nodes] : rows) {
    for (auto& [key, row] : by_nodes) a.outcomes.push_back(row);
    a.outcomes.push_back(per_source[source]);
  }
  a.outcomes.push_back(total);
}

// Operator types per outcome, their enrichment and the sequence study, over the models with a
// graph. Returns the operator types of the failing models (the suites' coverage reads them).
std::set<std::string> operator_study(CampaignAnalysis& a, const std::vector<Model>& models,
                                     const CampaignAnalysisOptions& options) {
  std::set<std::string> mismatched, failing, correct, failing_any;
  std::vector<std::set<std::string>> op_features, mismatch_features, gram_features;
  std::vector<bool> op_case, mismatch_case, gram_case;
  std::vector<const OpGraph*> mismatched_graphs, correct_graphs;
  double nodes_failing = 0, nodes_passing = 0;
  for (const auto& m : models) {
    if (!m.graph) continue;
    ++a.models_with_graph;
    const OpGraph& g = *m.graph;
    std::set<std::string> types(g.ops.begin(), g.ops.end());
    if (m.outcome == kMismatch) mismatched.insert(types.begin(), types.end());
    if (m.outcome == kConversionFailure || m.outcome == kInvalidExport || m.outcome == kOrtFailure)
      failing.insert(types.begin(), types.end());
    if (m.outcome == kSuccess) correct.insert(types.begin(), types.end());
    const bool fail = is_failure(m.outcome);
    if (!fail && m.outcome != kSuccess) continue;  // invalid, not run: neither case nor control
    if (fail) failing_any.insert(types.begin(), types.end());
    (fail ? a.failing_with_graph : a.passing_with_graph) += 1;
    (fail ? nodes_failing : nodes_passing) += static_cast<double>(g.ops.size());
    op_features.push_back(types);
    op_case.push_back(fail);
    if (m.outcome == kMismatch || m.outcome == kSuccess) {
      mismatch_features.push_back(types);
      mismatch_case.push_back(m.outcome == kMismatch);
      (m.outcome == kMismatch ? mismatched_graphs : correct_graphs).push_back(&g);
    }
    bool capped = false;
    gram_features.push_back(
        edge_ngrams(g, options.ngram_min, options.ngram_max, options.max_walks, &capped));
    gram_case.push_back(fail);
    a.ngram_capped_models += capped;
  }
  a.ops_mismatched = sorted(mismatched);
  a.ops_failing = sorted(failing);
  a.ops_correct = sorted(correct);
  if (a.failing_with_graph)
    a.mean_nodes_failing = nodes_failing / static_cast<double>(a.failing_with_graph);
  if (a.passing_with_graph)
    a.mean_nodes_passing = nodes_passing / static_cast<double>(a.passing_with_graph);
  a.operators = enrichment(op_features, op_case, options.min_models);
  a.operators_mismatch = enrichment(mismatch_features, mismatch_case, options.min_models);
  a.ngrams = enrichment(gram_features, gram_case, options.min_models);
  a.sequences = sequence_study(mismatched_graphs, correct_graphs, options.sequences);
  return failing_any;
}

// One stored group as the report shows it: its minimised model's graph (else the
// representative's), its operators and longest path, candidate issues and labels.
GroupRow group_row(const StoredGroup& row, const std::map<std::int64_t, const Model*>& by_seq,
                   const CampaignAnalysisOptions& options, long* unreadable) {
  GroupRow g;
  g.id = row.id;
  g.outcome = row.outcome;
  g.signature = row.signature;
  g.size = static_cast<long>(row.size);
  if (row.original_nodes) g.original_nodes = static_cast<long>(*row.original_nodes);
  if (row.minimised_nodes) g.minimised_nodes = static_cast<long>(*row.minimised_nodes);
  const std::string where = "campaign group " + std::to_string(g.id);
  if (!row.minimised_graph.is_null()) {
    try {
      g.graph = op_graph_from_json(row.minimised_graph, where + " minimised_graph_json");
      g.minimised = true;
    } catch (const UserError&) {
      ++*unreadable;
    }
  } else if (row.representative_seq) {
    auto it = by_seq.find(*row.representative_seq);
    if (it != by_seq.end() && it->second->graph) g.graph = it->second->graph;
  }
  if (g.graph) {
    g.operators = operator_types(*g.graph);
    g.sequence = longest_path(*g.graph, options.sequences.max_paths);
  }
  if (row.candidates.is_array()) {
    g.candidates.emplace();
    for (const auto& x : row.candidates)
      if (x.is_object() && x.contains("issue") && x["issue"].is_string())
        g.candidates->push_back(x["issue"].get<std::string>());
  }
  if (row.labels.is_object())
    for (auto it = row.labels.begin(); it != row.labels.end(); ++it)
      if (it->is_string()) g.labels[it.key()] = it->get<std::string>();
  return g;
}

// Where each group's verdict changed across ONNX Runtime releases (`bisect --group`); a missing
// kernel says in which release it appeared.
void add_runtime_histories(Db& db, std::vector<GroupRow>& groups) {
  std::map<std::int64_t, std::string> runtime;
  const std::vector<reports::RuntimeHistory> histories = repro::runtime_histories(db);
  for (const reports::RuntimeHistory& h : histories)
    if (h.group_id) {
      std::string& text = runtime[h.group_id];
      text += (text.empty() ? "" : "; ") + reports::runtime_history_text(h);
    }
  for (const reports::RuntimeHistory& h : histories)
    for (GroupRow& g : groups)
      if (h.group_id == g.id)
        if (auto kernel = repro::kernel_release_text(g.signature, h.fixed_in, h.regressed_in,
                                                     h.newest_known, h.still_failing))
          runtime[g.id] = *kernel;
  for (GroupRow& g : groups)
    if (auto it = runtime.find(g.id); it != runtime.end()) g.runtime = it->second;
}

// The failure groups (by id), with what people read: the representative's message as said, the
// ONNX Runtime history; then the breakdown (tolerances of the mismatch groups, kernels, the
// per-family and per-type tables).
void group_study(Db& db, CampaignAnalysis& a, const std::vector<StoredModel>& rows,
                 const std::vector<Model>& models, const CampaignAnalysisOptions& options) {
  std::map<std::int64_t, const Model*> by_seq;
  for (const auto& m : models) by_seq[m.seq] = &m;
  std::map<std::int64_t, const StoredModel*> row_of;
  for (const StoredModel& row : rows) row_of[row.seq] = &row;
  std::vector<StoredGroup> stored = load_groups(db, a.campaign_id);
  std::sort(stored.begin(), stored.end(),
            [](const StoredGroup& x, const StoredGroup& y) { return x.id < y.id; });
  std::vector<std::int64_t> mismatch_groups;
  for (const StoredGroup& row : stored) {
    GroupRow g = group_row(row, by_seq, options, &a.unreadable_graphs);
    if (row.representative_seq)
      if (auto it = row_of.find(*row.representative_seq); it != row_of.end())
        g.message = it->second->message;
    if (g.outcome == kMismatch) mismatch_groups.push_back(g.id);
    a.groups.push_back(std::move(g));
  }
  add_runtime_histories(db, a.groups);
  a.breakdown = breakdown_campaign(rows, mismatch_groups);
}

// Whether any test model of the suite holds every input-to-output path of the group's graph.
bool suite_holds_group(const TestSuite& suite, const GroupRow& g, std::size_t max_paths) {
  std::vector<std::vector<std::string>> paths;
  for (const auto& p : simple_paths(*g.graph, max_paths)) {
    paths.emplace_back();
    for (int v : p) paths.back().push_back(g.graph->ops[static_cast<std::size_t>(v)]);
  }
  for (const auto& t : suite.graphs)
    if (std::all_of(paths.begin(), paths.end(),
                    [&](const auto& ops) { return contains_walk(t, ops); }))
      return true;
  return false;
}

// How much of what failed one test suite covers (operator types, reduced sequences, enriched
// n-grams, failure groups).
SuiteCoverage suite_coverage(const std::string& name, CampaignAnalysis& a,
                             const std::set<std::string>& failing_any,
                             const std::vector<std::vector<std::string>>& enriched,
                             const CampaignAnalysisOptions& options) {
  TestSuite suite = load_test_suite(name);
  SuiteCoverage c;
  c.name = suite.name;
  c.dir = suite.dir;
  c.models = static_cast<long>(suite.graphs.size());
  c.unreadable = suite.unreadable;
  std::set<std::string> types;
  for (const auto& g : suite.graphs) types.insert(g.ops.begin(), g.ops.end());
  c.operator_types = sorted(types);
  c.failing_types = static_cast<long>(failing_any.size());
  for (const auto& t : failing_any)
    if (types.count(t))
      ++c.failing_types_covered;
    else
      c.failing_types_missing.push_back(t);
  auto anywhere = [&](const std::vector<std::string>& ops) {
    for (const auto& g : suite.graphs)
      if (contains_walk(g, ops)) return true;
    return false;
  };
  c.reduced = static_cast<long>(a.sequences.reduced.size());
  for (const auto& f : a.sequences.reduced) c.reduced_missing += !anywhere(f.ops);
  c.ngrams = static_cast<long>(enriched.size());
  for (const auto& ops : enriched) c.ngrams_missing += !anywhere(ops);
  for (auto& g : a.groups) {
    const bool held = g.graph && suite_holds_group(suite, g, options.sequences.max_paths);
    if (g.graph) {
      ++c.groups;
      c.groups_missing += !held;
    }
    g.in_suite.push_back(held);
  }
  return c;
}

// The enriched n-grams (q < alpha, odds ratio above 1) as operator lists.
std::vector<std::vector<std::string>> enriched_ngrams(const CampaignAnalysis& a, double alpha) {
  std::vector<std::vector<std::string>> enriched;
  for (const auto& e : a.ngrams)
    if (e.q < alpha && e.odds_ratio > 1) {
      std::vector<std::string> ops;
      std::size_t at = 0;
      for (std::size_t p; (p = e.feature.find(" > ", at)) != std::string::npos; at = p + 3)
        ops.push_back(e.feature.substr(at, p - at));
      ops.push_back(e.feature.substr(at));
      enriched.push_back(std::move(ops));
    }
  return enriched;
}

}  // namespace

CampaignAnalysis analyse_campaign(Db& db, std::int64_t campaign_id,
                                  const CampaignAnalysisOptions& options) {
  CampaignAnalysis a;
  a.campaign_id = campaign_id;
  a.options = options;
  {
    StoredCampaign c = load_campaign(db, campaign_id);
    a.created_at = c.created_at;
    a.finished_at = c.finished_at.value_or("");
    a.config = c.config;
    a.versions = c.versions;
  }
  const std::vector<StoredModel> rows = load_models(db, campaign_id);
  std::vector<Model> models;
  for (const StoredModel& row : rows) {
    Model m;
    m.seq = row.seq;
    m.source = row.source;
    if (row.nodes) m.nodes = static_cast<long>(*row.nodes);
    m.outcome = row.outcome;
    m.graph =
        graph_of(row, "campaign " + std::to_string(campaign_id) + " model " + std::to_string(m.seq),
                 &a.unreadable_graphs);
    models.push_back(std::move(m));
  }
  a.models = static_cast<long>(models.size());
  load_outcomes(a, models);
  const std::set<std::string> failing_any = operator_study(a, models, options);
  group_study(db, a, rows, models, options);
  const auto enriched = enriched_ngrams(a, options.alpha);
  for (const auto& name : options.suites)
    a.suites.push_back(suite_coverage(name, a, failing_any, enriched, options));
  return a;
}

}  // namespace convfail::campaign
