#include "campaign/report/campaign_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "campaign/outcomes.h"
#include "campaign/report/breakdown_tables.h"

namespace convfail::campaign {
namespace {

using nlohmann::json;
using reports::count_with_percent;
using reports::share;
using reports::Table;
using Tidy = std::vector<reports::TableValue>;

constexpr std::size_t kTopRows = 30;

std::string num(double x, const char* format = "%.3g") {
  if (std::isnan(x)) return "n/a";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

std::string percent(double share) {
  return num(100 * share, "%.1f") + "%";
}

std::string list(const std::vector<std::string>& v, std::size_t max = 0) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (max && i == max) return s + ", ... (" + std::to_string(v.size() - max) + " more)";
    s += (i ? ", " : "") + v[i];
  }
  return s.empty() ? "-" : s;
}

std::vector<std::string> minus(const std::vector<std::string>& a,
                               const std::vector<std::string>& b) {
  std::vector<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// A fraction with four decimals (tidy CSV: a share is a number, not "12.5%").
std::string fraction(double x) {
  return num(x, "%.4f");
}

// A list in tidy form: one value per item, each its own row of (row, column); none when empty.
void put_list(Tidy& tidy, const std::string& row, const std::string& column,
              const std::vector<std::string>& items) {
  for (const auto& item : items) tidy.push_back({row, column, item});
}

// The tidy row key of an outcome row: "synthetic 30 nodes" for "synthetic, 30 nodes".
std::string outcome_row_key(const OutcomeRow& r) {
  std::string key = r.label;
  auto at = key.find(", ");
  if (at != std::string::npos) key.replace(at, 2, " ");
  return key;
}

Table outcomes_table(const CampaignAnalysis& a, Tidy& tidy) {
  Table t;
  t.id = "outcomes";
  t.title = "Outcomes per source and node count (Table 11 of the study)";
  t.header = {"Source, nodes"};
  for (const auto& o : outcome_classes()) t.header.push_back(outcome_title(o));
  t.header.push_back("Models");
  for (const auto& r : a.outcomes) {
    std::vector<std::string> row{r.label};
    const std::string key = outcome_row_key(r);
    tidy.push_back({key, "Source", r.total && r.label == "Total" ? "all" : r.source});
    // Numbers only (a CSV reader's numeric columns): the row's lowest and highest node count.
    if (r.nodes_min) tidy.push_back({key, "Nodes min", std::to_string(*r.nodes_min)});
    if (r.nodes_max) tidy.push_back({key, "Nodes max", std::to_string(*r.nodes_max)});
    for (const auto& o : outcome_classes()) {
      row.push_back(count_with_percent(r.counts.at(o), r.models));
      tidy.push_back({key, outcome_title(o), std::to_string(r.counts.at(o))});
      tidy.push_back(
          {key, std::string(outcome_title(o)) + " share", share(r.counts.at(o), r.models)});
    }
    row.push_back(std::to_string(r.models));
    tidy.push_back({key, "Models", std::to_string(r.models)});
    t.rows.push_back(std::move(row));
  }
  t.note =
      "Synthetic models by their requested operator count; other sources binned by the "
      "torch program's operator count. Shares are of the row's models. ";
  t.note += kStudyColumns;
  return t;
}

reports::BarChart outcomes_chart(const CampaignAnalysis& a) {
  reports::BarChart c;
  c.table_id = "outcomes";
  c.title = "Outcomes per node count";
  for (const auto& o : outcome_classes()) c.series.push_back(outcome_title(o));
  for (const auto& r : a.outcomes) {
    if (r.total) continue;
    c.categories.push_back(r.label);
    std::vector<long> v;
    for (const auto& o : outcome_classes()) v.push_back(r.counts.at(o));
    c.values.push_back(std::move(v));
  }
  return c;
}

Table operator_sets_table(const CampaignAnalysis& a, Tidy& tidy) {
  Table t;
  t.id = "operator_sets";
  t.title = "ONNX operator types per outcome and their differences (Table 15 of the study)";
  t.header = {"Set", "Types", "Operators"};
  auto add = [&](const std::string& name, const std::vector<std::string>& v) {
    t.rows.push_back({name, std::to_string(v.size()), list(v)});
    tidy.push_back({name, "Types", std::to_string(v.size())});
    put_list(tidy, name, "Operator", v);
  };
  add("mismatched (M)", a.ops_mismatched);
  add("conversion/ORT failure (F)", a.ops_failing);
  add("correct (C)", a.ops_correct);
  for (const auto& s : a.suites) add("test suite " + s.name + " (T)", s.operator_types);
  add("M - C", minus(a.ops_mismatched, a.ops_correct));
  add("C - M", minus(a.ops_correct, a.ops_mismatched));
  add("F - C", minus(a.ops_failing, a.ops_correct));
  for (const auto& s : a.suites) {
    add("M - T (" + s.name + ")", minus(a.ops_mismatched, s.operator_types));
    add("F - T (" + s.name + ")", minus(a.ops_failing, s.operator_types));
  }
  return t;
}

// "Erf: 12 of 12 models holding it fail (100.0%), 1 of 26 without (3.8%)": the numbers a
// sentence about one operator rests on.
std::string rates_text(const Enrichment& e, const char* verb) {
  const long with = e.case_with + e.control_with, without = e.case_without + e.control_without;
  return e.feature + ": " + std::to_string(e.case_with) + " of " + std::to_string(with) +
         " models holding it " + verb + " (" + percent(e.case_rate) + "), " +
         std::to_string(e.case_without) + " of " + std::to_string(without) + " without" +
         (without ? " (" + percent(e.rest_rate) + ")" : "");
}

std::string headline(const std::vector<Enrichment>& rows, double alpha, const char* what,
                     const char* verb) {
  std::vector<const Enrichment*> up;
  for (const auto& e : rows)
    if (e.q < alpha && e.odds_ratio > 1) up.push_back(&e);
  if (up.empty())
    return std::string("No operator raises the odds of ") + what + " (every q >= " + num(alpha) +
           ", " + std::to_string(rows.size()) + " operators tested).";
  std::string s = std::string("Operators that raise the odds of ") + what + ": ";
  for (std::size_t i = 0; i < up.size() && i < 3; ++i)
    s += (i ? "; " : "") + rates_text(*up[i], verb) + ", odds ratio " + num(up[i]->odds_ratio) +
         ", q = " + num(up[i]->q);
  if (up.size() > 3) s += "; " + std::to_string(up.size() - 3) + " more";
  return s + ".";
}

Table enrichment_table(const std::string& id, const std::string& title,
                       const std::vector<Enrichment>& rows, const std::string& feature,
                       const std::string& case_name, const std::string& control_name,
                       std::size_t max_rows, Tidy& tidy) {
  Table t;
  t.id = id;
  t.title = title;
  t.header = {feature,        "Models",     case_name, control_name, "Rate with",
              "Rate without", "Odds ratio", "p",       "q"};
  for (std::size_t i = 0; i < rows.size() && (!max_rows || i < max_rows); ++i) {
    const auto& e = rows[i];
    const bool none_without = e.case_without + e.control_without == 0;
    t.rows.push_back({e.feature, std::to_string(e.case_with + e.control_with),
                      std::to_string(e.case_with), std::to_string(e.control_with),
                      percent(e.case_rate), none_without ? "-" : percent(e.rest_rate),
                      std::isnan(e.odds_ratio) ? "-" : num(e.odds_ratio), num(e.p), num(e.q)});
    const std::vector<std::string>& row = t.rows.back();
    for (std::size_t c = 1; c < row.size(); ++c) {
      if (row[c] == "-") continue;  // no model without it, or no odds ratio: no value
      tidy.push_back({e.feature, t.header[c],
                      c == 4   ? fraction(e.case_rate)
                      : c == 5 ? fraction(e.rest_rate)
                               : row[c]});
    }
  }
  return t;
}

// Which of the two groups of models is larger, said from the numbers beside it: the caution
// only where failing models are the larger ones.
std::string size_note(const CampaignAnalysis& a) {
  if (!a.failing_with_graph || !a.passing_with_graph) return "";
  const std::string failing = num(a.mean_nodes_failing, "%.1f"),
                    passing = num(a.mean_nodes_passing, "%.1f");
  const std::string here = " (here " + failing + " ONNX nodes on average for failing models, " +
                           passing + " for passing ones)";
  if (failing == passing) return " Failing and passing models are of one size" + here + ".";
  if (a.mean_nodes_failing > a.mean_nodes_passing)
    return " Caution: larger models hold more operator types, so an operator can look enriched "
           "only because failing models are larger" +
           here + "; compare within one node count in the outcome table.";
  return " Failing models are smaller than passing ones" + here +
         ", so their size does not explain an enriched operator.";
}

std::string confound_note(const CampaignAnalysis& a) {
  std::string left_out;
  if (a.failing_without_graph)
    left_out = " " + std::to_string(a.failing_without_graph) +
               (a.failing_without_graph == 1 ? " failing model has" : " failing models have") +
               " no exported graph (conversion failures before export) and " +
               (a.failing_without_graph == 1 ? "is" : "are") + " left out: the table counts " +
               std::to_string(a.failing_with_graph) + " failing and " +
               std::to_string(a.passing_with_graph) + " passing models.";
  return "Fisher's exact test of each operator against the rest, Benjamini-Hochberg over all "
         "operators tested (held by >= " +
         std::to_string(a.options.min_models) + " models); invalid models left out." + left_out +
         size_note(a);
}

reports::BarChart enrichment_chart(const CampaignAnalysis& a) {
  reports::BarChart c;
  c.table_id = "operator_enrichment";
  c.title = "Failure rate with and without each operator, ranked by q";
  c.series = {"with the operator (%)", "without it (%)"};
  for (std::size_t i = 0; i < a.operators.size() && i < 15; ++i) {
    const auto& e = a.operators[i];
    c.categories.push_back(e.feature + " (q=" + num(e.q, "%.2g") + ")");
    c.values.push_back({std::lround(100 * e.case_rate), std::lround(100 * e.rest_rate)});
  }
  return c;
}

Table sequences_table(const CampaignAnalysis& a, Tidy& tidy) {
  const auto& s = a.sequences;
  Table t;
  t.id = "sequences";
  t.title = "Operator sequences on input-to-output paths (the study's method, deterministic)";
  t.header = {"Figure", "Value"};
  t.rows = {{"mismatched models with a graph", std::to_string(s.mismatched_models)},
            {"correct models with a graph", std::to_string(s.correct_models)},
            {"distinct paths", std::to_string(s.paths)},
            {"models whose paths hit the cap of " + std::to_string(a.options.sequences.max_paths),
             std::to_string(s.capped_models)},
            {"common blocks (maximal; >= " + std::to_string(a.options.sequences.min_block) +
                 " operators; in >= " + std::to_string(a.options.sequences.min_support) +
                 " mismatched models)",
             std::to_string(s.common_blocks.size())},
            {"common blocks only in mismatched models", std::to_string(s.only_mismatched.size())},
            {"reduced set (minimal blocks in no correct model)", std::to_string(s.reduced.size())},
            {"mismatched models holding one",
             count_with_percent(s.mismatched_holding, s.mismatched_models)}};
  for (std::size_t i = 0; i + 1 < t.rows.size(); ++i)
    tidy.push_back({t.rows[i][0], "Value", t.rows[i][1]});
  tidy.push_back({t.rows.back()[0], "Value", std::to_string(s.mismatched_holding)});
  tidy.push_back(
      {t.rows.back()[0] + " (share)", "Value", share(s.mismatched_holding, s.mismatched_models)});
  t.note =
      "The study (torch.onnx, synthetic models): 176 sequences only in mismatched models, "
      "131 after reduction, 96 of 100 mismatched models hold one.";
  return t;
}

Table reduced_table(const CampaignAnalysis& a) {
  std::vector<SequenceFinding> v = a.sequences.reduced;
  std::stable_sort(v.begin(), v.end(), [](const SequenceFinding& x, const SequenceFinding& y) {
    return x.mismatched_models > y.mismatched_models;
  });
  Table t;
  t.id = "reduced_sequences";
  t.title = "Reduced sequences only in mismatched models (most widespread first)";
  t.header = {"Sequence", "Mismatched models"};
  for (std::size_t i = 0; i < v.size() && i < kTopRows; ++i)
    t.rows.push_back({sequence_text(v[i].ops), std::to_string(v[i].mismatched_models)});
  if (v.size() > kTopRows)
    t.note = "First " + std::to_string(kTopRows) + " of " + std::to_string(v.size()) +
             "; the JSON holds them all.";
  return t;
}

Table coverage_table(const CampaignAnalysis& a, Tidy& tidy) {
  Table t;
  t.id = "coverage";
  t.title = "Test-suite coverage of what fails";
  t.header = {"Test suite",
              "Models",
              "Operator types",
              "Failing types covered",
              "Failing types missing",
              "Reduced sequences in no test model",
              "Enriched n-grams in no test model",
              "Failure groups in no test model"};
  for (const auto& s : a.suites)
    t.rows.push_back({s.name, std::to_string(s.models), std::to_string(s.operator_types.size()),
                      count_with_percent(s.failing_types_covered, s.failing_types),
                      list(s.failing_types_missing, 20),
                      count_with_percent(s.reduced_missing, s.reduced),
                      count_with_percent(s.ngrams_missing, s.ngrams),
                      count_with_percent(s.groups_missing, s.groups)});
  for (const auto& s : a.suites) {
    auto part = [&](const std::string& column, long n, long of) {
      tidy.push_back({s.name, column, std::to_string(n)});
      tidy.push_back({s.name, column + " (share)", share(n, of)});
    };
    tidy.push_back({s.name, "Models", std::to_string(s.models)});
    tidy.push_back({s.name, "Operator types", std::to_string(s.operator_types.size())});
    tidy.push_back({s.name, "Failing types", std::to_string(s.failing_types)});
    part("Failing types covered", s.failing_types_covered, s.failing_types);
    put_list(tidy, s.name, "Failing type missing", s.failing_types_missing);
    part("Reduced sequences in no test model", s.reduced_missing, s.reduced);
    part("Enriched n-grams in no test model", s.ngrams_missing, s.ngrams);
    part("Failure groups in no test model", s.groups_missing, s.groups);
  }
  t.note =
      "Failing types: operator types of models that failed (conversion, ORT, mismatch). A "
      "sequence is in a test model when it is a walk along its edges; a group when one "
      "test model holds every input-to-output path of the group's minimised model (else "
      "its representative). The study: torch.onnx's test models held 16 operator types "
      "against 58 in mismatched models.";
  return t;
}

std::string group_failure_text(const GroupRow& g) {
  return shown_failure(g.signature, g.message);
}

Table defects_table(const CampaignAnalysis& a, Tidy& tidy) {
  Table t;
  t.id = "defects";
  t.title = "Defects found: failure groups";
  t.header = {"Group",     "Outcome",  "Failure",        "Models", "Minimal nodes",
              "Operators", "Sequence", "Matched issues", "Labels", "ONNX Runtime releases"};
  for (const auto& g : a.groups) {
    std::string nodes =
        g.minimised_nodes
            ? std::to_string(*g.minimised_nodes)
            : (g.original_nodes ? std::to_string(*g.original_nodes) + " (not minimised)" : "-");
    std::string issues = !g.candidates ? "not matched yet"
                                       : (g.candidates->empty() ? "new" : list(*g.candidates, 3));
    std::string labels;
    for (const char* k : {"symptom", "cause", "stage"}) {
      auto it = g.labels.find(k);
      if (it != g.labels.end()) labels += (labels.empty() ? "" : ", ") + it->second;
    }
    t.rows.push_back({std::to_string(g.id), outcome_title(g.outcome), group_failure_text(g),
                      std::to_string(g.size), nodes, list(g.operators),
                      g.sequence.empty() ? "-" : sequence_text(g.sequence), issues,
                      labels.empty() ? "-" : labels, g.runtime.value_or("not bisected")});
    const std::string row = std::to_string(g.id);
    tidy.push_back({row, "Outcome", outcome_title(g.outcome)});
    tidy.push_back({row, "Failure", group_failure_text(g)});
    tidy.push_back({row, "Signature", g.signature});
    tidy.push_back({row, "Models", std::to_string(g.size)});
    if (g.original_nodes)
      tidy.push_back({row, "Original nodes", std::to_string(*g.original_nodes)});
    if (g.minimised_nodes)
      tidy.push_back({row, "Minimal nodes", std::to_string(*g.minimised_nodes)});
    tidy.push_back({row, "Minimised", g.minimised_nodes ? "yes" : "no"});
    put_list(tidy, row, "Operator", g.operators);
    if (!g.sequence.empty()) tidy.push_back({row, "Sequence", sequence_text(g.sequence)});
    tidy.push_back({row, "Known or new",
                    !g.candidates           ? "not matched"
                    : g.candidates->empty() ? "new"
                                            : "known"});
    if (g.candidates) put_list(tidy, row, "Matched issue", *g.candidates);
    for (const char* k : {"symptom", "cause", "stage"}) {
      auto it = g.labels.find(k);
      if (it != g.labels.end()) tidy.push_back({row, std::string("Label ") + k, it->second});
    }
    tidy.push_back({row, "ONNX Runtime releases", g.runtime.value_or("not bisected")});
  }
  return t;
}

json enrichment_json(const std::vector<Enrichment>& rows, double alpha, std::size_t first) {
  json out = json::array();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& e = rows[i];
    if (i >= first && e.q >= alpha) break;  // sorted by q
    out.push_back(
        {{"feature", e.feature},
         {"failing_with", e.case_with},
         {"passing_with", e.control_with},
         {"failing_without", e.case_without},
         {"passing_without", e.control_without},
         {"rate_with", e.case_rate},
         // null: no model without it; an odds ratio that is infinite (a zero cell) or
         // undefined (the counts say which)
         {"rate_without", e.case_without + e.control_without ? json(e.rest_rate) : json()},
         {"odds_ratio", std::isfinite(e.odds_ratio) ? json(e.odds_ratio) : json()},
         {"p", e.p},
         {"q", e.q}});
  }
  return out;
}

json findings_json(const std::vector<SequenceFinding>& v) {
  json out = json::array();
  for (const auto& f : v)
    out.push_back({{"ops", f.ops}, {"mismatched_models", f.mismatched_models}});
  return out;
}

}  // namespace

reports::PrintedReport printed_campaign_report(const CampaignAnalysis& a) {
  reports::PrintedReport r;
  r.title = "convfail campaign " + std::to_string(a.campaign_id) + ": " + std::to_string(a.models) +
            " models";
  r.tables.push_back(outcomes_table(a, r.tidy["outcomes"]));
  r.charts.push_back(outcomes_chart(a));
  r.tables.push_back(dtype_table(a, r.tidy["outcomes_by_dtype"]));
  r.tables.push_back(touched_dtype_table(a, r.tidy["outcomes_by_touched_dtype"]));
  r.tables.push_back(family_table(a, r.tidy["outcomes_by_family"]));
  if (!a.breakdown.not_run.empty()) r.tables.push_back(not_run_table(a, r.tidy["not_run"]));
  r.tables.push_back(kernel_table(a, r.tidy["ort_kernels"]));
  r.tables.push_back(tolerance_table(a, r.tidy["tolerance_curve"]));
  r.charts.push_back(tolerance_chart(a));
  r.tables.push_back(group_tolerance_table(a, r.tidy["mismatch_tolerance"]));
  r.tables.push_back(operator_sets_table(a, r.tidy["operator_sets"]));
  Table ops = enrichment_table("operator_enrichment",
                               "Operators and failure (any failure vs success)", a.operators,
                               "Operator", "Failing", "Passing", 0, r.tidy["operator_enrichment"]);
  ops.note = headline(a.operators, a.options.alpha, "a failure", "fail") + " " + confound_note(a);
  r.tables.push_back(std::move(ops));
  r.charts.push_back(enrichment_chart(a));
  Table mm = enrichment_table("operator_enrichment_mismatch", "Operators and mismatch (vs success)",
                              a.operators_mismatch, "Operator", "Mismatch", "Success", 0,
                              r.tidy["operator_enrichment_mismatch"]);
  mm.note = headline(a.operators_mismatch, a.options.alpha, "a mismatch", "are mismatches");
  r.tables.push_back(std::move(mm));
  r.tables.push_back(sequences_table(a, r.tidy["sequences"]));
  r.tables.push_back(reduced_table(a));
  Table ng = enrichment_table(
      "ngram_enrichment",
      "Operator n-grams (" + std::to_string(a.options.ngram_min) + " to " +
          std::to_string(a.options.ngram_max) + " operators along edges) and failure",
      a.ngrams, "N-gram", "Failing", "Passing", kTopRows, r.tidy["ngram_enrichment"]);
  long significant = std::count_if(a.ngrams.begin(), a.ngrams.end(), [&](const Enrichment& e) {
    return e.q < a.options.alpha && e.odds_ratio > 1;
  });
  ng.note = std::to_string(a.ngrams.size()) +
            " n-grams tested (held by >= " + std::to_string(a.options.min_models) + " models), " +
            std::to_string(significant) + " enriched in failing models at q < " +
            num(a.options.alpha) + "; " + std::to_string(a.ngram_capped_models) +
            " models hit the walk cap. First " + std::to_string(kTopRows) + " rows by q.";
  r.tables.push_back(std::move(ng));
  if (!a.suites.empty()) r.tables.push_back(coverage_table(a, r.tidy["coverage"]));
  r.tables.push_back(defects_table(a, r.tidy["defects"]));
  return r;
}

std::string campaign_report_json(const CampaignAnalysis& a) {
  json outcomes = json::array();
  for (const auto& r : a.outcomes)
    outcomes.push_back({{"label", r.label},
                        {"source", r.source},
                        {"total", r.total},
                        {"models", r.models},
                        {"counts", r.counts}});
  const auto& s = a.sequences;
  json groups = json::array();
  for (const auto& g : a.groups) {
    json j = {{"id", g.id},
              {"outcome", g.outcome},
              {"signature", g.signature},
              {"message", g.message.empty() ? json() : json(g.message)},
              {"size", g.size},
              {"original_nodes", g.original_nodes ? json(*g.original_nodes) : json()},
              {"minimised_nodes", g.minimised_nodes ? json(*g.minimised_nodes) : json()},
              {"minimised", g.minimised},
              {"operators", g.operators},
              {"sequence", g.sequence},
              {"candidates", g.candidates ? json(*g.candidates) : json()},
              {"labels", g.labels},
              {"runtime", g.runtime ? json(*g.runtime) : json()}};
    json in_suite = json::object();
    for (std::size_t i = 0; i < a.suites.size() && i < g.in_suite.size(); ++i)
      in_suite[a.suites[i].name] = static_cast<bool>(g.in_suite[i]);
    j["in_suite"] = in_suite;
    groups.push_back(std::move(j));
  }
  json suites = json::array();
  for (const auto& c : a.suites)
    suites.push_back({{"name", c.name},
                      {"dir", c.dir},
                      {"models", c.models},
                      {"unreadable", c.unreadable},
                      {"operator_types", c.operator_types},
                      {"failing_types", c.failing_types},
                      {"failing_types_covered", c.failing_types_covered},
                      {"failing_types_missing", c.failing_types_missing},
                      {"reduced", c.reduced},
                      {"reduced_missing", c.reduced_missing},
                      {"ngrams", c.ngrams},
                      {"ngrams_missing", c.ngrams_missing},
                      {"groups", c.groups},
                      {"groups_missing", c.groups_missing}});
  json out = {{"campaign", a.campaign_id},
              {"created_at", a.created_at},
              {"finished_at", a.finished_at.empty() ? json() : json(a.finished_at)},
              {"config", a.config},
              {"versions", a.versions},
              {"models", a.models},
              {"outcomes", outcomes},
              {"operators",
               {{"mismatched", a.ops_mismatched},
                {"failing", a.ops_failing},
                {"correct", a.ops_correct},
                {"models_with_graph", a.models_with_graph},
                {"unreadable_graphs", a.unreadable_graphs},
                {"failing_without_graph", a.failing_without_graph},
                {"mean_nodes_failing", a.mean_nodes_failing},
                {"mean_nodes_passing", a.mean_nodes_passing},
                {"enrichment", enrichment_json(a.operators, 2, 0)},
                {"enrichment_mismatch", enrichment_json(a.operators_mismatch, 2, 0)}}},
              {"sequences",
               {{"mismatched_models", s.mismatched_models},
                {"correct_models", s.correct_models},
                {"paths", s.paths},
                {"capped_models", s.capped_models},
                {"common_blocks", findings_json(s.common_blocks)},
                {"only_mismatched", findings_json(s.only_mismatched)},
                {"reduced", findings_json(s.reduced)},
                {"mismatched_holding", s.mismatched_holding}}},
              {"ngrams",
               {{"tested", a.ngrams.size()},
                {"capped_models", a.ngram_capped_models},
                {"rows", enrichment_json(a.ngrams, a.options.alpha, 100)}}},
              {"suites", suites},
              {"groups", groups},
              {"alpha", a.options.alpha}};
  out.update(breakdown_json(a));
  return out.dump(2) + "\n";
}

std::string campaign_report(Db& db, std::int64_t campaign_id, reports::ReportFormat format,
                            const CampaignAnalysisOptions& options, bool raw_csv,
                            bool latex_standalone) {
  CampaignAnalysis a = analyse_campaign(db, campaign_id, options);
  if (format == reports::ReportFormat::kJson) return campaign_report_json(a);
  reports::PrintedReport printed = printed_campaign_report(a);
  switch (format) {
    case reports::ReportFormat::kMarkdown:
      return reports::render_markdown(printed);
    case reports::ReportFormat::kCsv:
      return reports::render_csv(printed, raw_csv);
    case reports::ReportFormat::kLatex:
      return reports::render_latex(printed, latex_standalone);
    default:
      return reports::render_html(printed);
  }
}

}  // namespace convfail::campaign
