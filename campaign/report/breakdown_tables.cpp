#include "campaign/report/breakdown_tables.h"

#include <cmath>
#include <cstdio>

#include "campaign/outcomes.h"

namespace convfail::campaign {
namespace {

using nlohmann::json;
using reports::count_with_percent;
using reports::share;
using reports::Table;
using Tidy = std::vector<reports::TableValue>;

// Whether the study's Table 11 has the outcome class (invalid export, invalid and not run are this
// tool's own: the study's rows leave them blank; its ORT failures hold our invalid exports).
bool study_has(const std::string& outcome) {
  return outcome != kInvalidExport && outcome != kInvalid && outcome != kNotRun;
}

Table outcome_rows(const std::string& id, const std::string& title, const std::string& first,
                   const std::vector<BreakdownRow>& rows, Tidy& tidy) {
  Table t;
  t.id = id;
  t.title = title;
  t.header = {first};
  for (const auto& o : outcome_classes()) t.header.push_back(outcome_title(o));
  t.header.push_back("Models");
  for (const auto& r : rows) {
    std::vector<std::string> row{r.label};
    for (const auto& o : outcome_classes()) {
      long n = r.counts.at(o);
      row.push_back(r.reference && !study_has(o) ? "-" : count_with_percent(n, r.models));
      if (r.reference && !study_has(o)) continue;
      tidy.push_back({r.label, outcome_title(o), std::to_string(n)});
      tidy.push_back({r.label, std::string(outcome_title(o)) + " share", share(n, r.models)});
    }
    row.push_back(std::to_string(r.models) + (r.note.empty() ? "" : " (" + r.note + ")"));
    tidy.push_back({r.label, "Models", std::to_string(r.models)});
    tidy.push_back({r.label, "Reference", r.reference ? "the study" : "this campaign"});
    t.rows.push_back(std::move(row));
  }
  return t;
}

json rows_json(const std::vector<BreakdownRow>& rows) {
  json out = json::array();
  for (const auto& r : rows) {
    json j = {
        {"label", r.label}, {"models", r.models}, {"counts", r.counts}, {"reference", r.reference}};
    if (!r.note.empty()) j["note"] = r.note;
    out.push_back(std::move(j));
  }
  return out;
}

// The first curve tolerance (largest first) at which the group still passes, walking down: the
// smallest of 1e-2 ... 1e-7 that t passes at.
std::string smallest_curve_tolerance(double passes_from) {
  std::string best;
  for (double t : curve_tolerances())
    if (!fails_at(passes_from, t)) best = tolerance_text(t);
  return best.empty() ? "fails even at 1e-2" : best;
}

}  // namespace

std::string tolerance_text(double t) {
  if (t >= 1e308) return "none";
  for (int e = 1; e <= 9; ++e) {
    double decade = std::pow(10.0, -e);
    if (std::fabs(t - decade) <= 1e-9 * decade) return "1e-" + std::to_string(e);
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1e", t);
  return buf;
}

Table family_table(const CampaignAnalysis& a, Tidy& tidy) {
  Table t = outcome_rows("outcomes_by_family",
                         "Outcomes of real models per family (Table 11 of the study)", "Family",
                         a.breakdown.families, tidy);
  t.note =
      "Families: torchvision's (vision classification, detection, segmentation, video, optical "
      "flow), audio and text models; script: sources apart. The study's row is its figures for "
      "torch.onnx. ";
  t.note += kStudyColumns;
  return t;
}

Table dtype_table(const CampaignAnalysis& a, Tidy& tidy) {
  Table t =
      outcome_rows("outcomes_by_dtype",
                   "Outcomes of synthetic models per main tensor type (Table 11 of the study)",
                   "Main type", a.breakdown.dtypes, tidy);
  t.note =
      "A model counts once, in the row of its main type (the type its generator drew most of its "
      "operators in; other types enter through casts).";
  if (a.breakdown.synthetic_without_main)
    t.note += " " + std::to_string(a.breakdown.synthetic_without_main) +
              " synthetic models record no main type (stored before it was recorded).";
  return t;
}

Table touched_dtype_table(const CampaignAnalysis& a, Tidy& tidy) {
  Table t = outcome_rows("outcomes_by_touched_dtype",
                         "Outcomes of synthetic models per tensor type they touch", "Type",
                         a.breakdown.touched_dtypes, tidy);
  t.note =
      "A model counts in the row of every type its graph uses (inputs and operators), so the "
      "rows overlap; the total counts each model once. ";
  t.note += kStudyColumns;
  if (a.breakdown.synthetic_without_dtypes)
    t.note += " " + std::to_string(a.breakdown.synthetic_without_dtypes) +
              " synthetic models record no types (stored before they were recorded).";
  return t;
}

Table kernel_table(const CampaignAnalysis& a, Tidy& tidy) {
  const CampaignBreakdown& b = a.breakdown;
  Table t;
  t.id = "ort_kernels";
  t.title = "ONNX Runtime failures by operator and element type (missing kernels)";
  t.header = {"Operator(version)"};
  for (const auto& type : b.kernel_types) t.header.push_back(type);
  t.header.push_back("Models");
  for (const auto& k : b.kernels) {
    std::vector<std::string> row{k.op};
    for (const auto& type : b.kernel_types) {
      auto it = k.types.find(type);
      long n = it == k.types.end() ? 0 : it->second;
      row.push_back(n ? std::to_string(n) : "");
      if (n) tidy.push_back({k.op, type, std::to_string(n)});
    }
    row.push_back(std::to_string(k.models));
    tidy.push_back({k.op, "Models", std::to_string(k.models)});
    t.rows.push_back(std::move(row));
  }
  t.note = std::to_string(b.ort_failures - b.ort_other) + " of " + std::to_string(b.ort_failures) +
           " ORT failures are a missing kernel (\"Could not find an implementation for X(v) "
           "node\"), counted by the operator, its version and the node's element type; " +
           std::to_string(b.ort_other) + " are other errors (the defects table lists them).";
  return t;
}

Table tolerance_table(const CampaignAnalysis& a, Tidy& tidy) {
  const CampaignBreakdown& b = a.breakdown;
  Table t;
  t.id = "tolerance_curve";
  t.title = "Models failing at atol = rtol = t, per kind of difference (tolerance curve)";
  t.header = {"Kind of difference", "Compared models"};
  for (double x : curve_tolerances()) t.header.push_back("t = " + tolerance_text(x));
  t.header.push_back("Mismatches at the campaign's tolerances");
  for (const auto& r : b.tolerance) {
    std::vector<std::string> row{r.kind, std::to_string(r.models)};
    tidy.push_back({r.kind, "Compared models", std::to_string(r.models)});
    for (std::size_t i = 0; i < r.failing.size(); ++i) {
      row.push_back(std::to_string(r.failing[i]));
      tidy.push_back(
          {r.kind, "t = " + tolerance_text(curve_tolerances()[i]), std::to_string(r.failing[i])});
    }
    row.push_back(std::to_string(r.mismatched));
    tidy.push_back({r.kind, "Mismatches", std::to_string(r.mismatched)});
    t.rows.push_back(std::move(row));
  }
  char tol[96];
  std::snprintf(tol, sizeof tol, "rtol %g, atol %g", a.config.value("rtol", 1e-3),
                a.config.value("atol", 1e-7));
  t.note =
      "Counted from each model's stored smallest passing tolerance (the largest |a - e| / "
      "(1 + |e|) over its outputs, input sets and both sessions), without a rerun. The "
      "campaign compared at " +
      std::string(tol) + ".";
  if (b.tolerance_unknown)
    t.note += " " + std::to_string(b.tolerance_unknown) + " of " + std::to_string(b.compared) +
              " compared models have no stored tolerance (stored before it was recorded).";
  return t;
}

reports::BarChart tolerance_chart(const CampaignAnalysis& a) {
  reports::BarChart c;
  c.table_id = "tolerance_curve";
  c.title = "Models failing at atol = rtol = t";
  for (double x : curve_tolerances()) c.categories.push_back("t = " + tolerance_text(x));
  for (const auto& r : a.breakdown.tolerance) c.series.push_back(r.kind);
  for (std::size_t i = 0; i < curve_tolerances().size(); ++i) {
    std::vector<long> v;
    for (const auto& r : a.breakdown.tolerance) v.push_back(r.failing[i]);
    c.values.push_back(std::move(v));
  }
  return c;
}

Table group_tolerance_table(const CampaignAnalysis& a, Tidy& tidy) {
  std::map<std::int64_t, const GroupRow*> groups;
  for (const auto& g : a.groups) groups[g.id] = &g;
  Table t;
  t.id = "mismatch_tolerance";
  t.title = "The smallest tolerance each mismatch group passes at";
  t.header = {"Group", "Failure", "Models", "Passes from t", "Passes at (of 1e-2 ... 1e-7)"};
  for (const auto& g : a.breakdown.group_tolerance) {
    const GroupRow* row = groups.count(g.group) ? groups[g.group] : nullptr;
    std::string failure = row ? shown_failure(row->signature, row->message) : "";
    std::string from = g.passes_from ? tolerance_text(*g.passes_from) : "not recorded";
    std::string at = g.passes_from ? smallest_curve_tolerance(*g.passes_from) : "-";
    if (g.passes_from && g.known < g.models)
      from += " (" + std::to_string(g.known) + " of " + std::to_string(g.models) + " models)";
    const std::string id = std::to_string(g.group);
    t.rows.push_back({id, failure, std::to_string(g.models), from, at});
    tidy.push_back({id, "Models", std::to_string(g.models)});
    tidy.push_back({id, "Passes from t", from});
    if (g.passes_from) tidy.push_back({id, "Passes at", at});
  }
  t.note =
      "Passes from t: the group's largest smallest-passing tolerance (atol = rtol = t); none: "
      "a non-finite value or a shape or type difference that no tolerance accepts.";
  return t;
}

json breakdown_json(const CampaignAnalysis& a) {
  const CampaignBreakdown& b = a.breakdown;
  json curve = json::array();
  for (const auto& r : b.tolerance) {
    json failing = json::object();
    for (std::size_t i = 0; i < r.failing.size(); ++i)
      failing[tolerance_text(curve_tolerances()[i])] = r.failing[i];
    curve.push_back({{"kind", r.kind},
                     {"models", r.models},
                     {"mismatched", r.mismatched},
                     {"failing", failing}});
  }
  json groups = json::array();
  for (const auto& g : b.group_tolerance)
    groups.push_back(
        {{"group", g.group},
         {"models", g.models},
         {"known", g.known},
         {"passes_from", g.passes_from && *g.passes_from < 1e308 ? json(*g.passes_from) : json()},
         {"passes", g.passes_from && *g.passes_from < 1e308}});
  json not_run = json::array();
  for (const auto& [reason, n] : b.not_run) not_run.push_back({{"reason", reason}, {"models", n}});
  json kernels = json::array();
  for (const auto& k : b.kernels)
    kernels.push_back({{"op", k.op}, {"types", k.types}, {"models", k.models}});
  return {{"outcomes_by_family", rows_json(b.families)},
          {"outcomes_by_dtype", rows_json(b.dtypes)},
          {"synthetic_without_main_dtype", b.synthetic_without_main},
          {"outcomes_by_touched_dtype", rows_json(b.touched_dtypes)},
          {"synthetic_without_dtypes", b.synthetic_without_dtypes},
          {"ort_kernels",
           {{"rows", kernels}, {"ort_failures", b.ort_failures}, {"other", b.ort_other}}},
          {"tolerance_curve",
           {{"rows", curve}, {"compared", b.compared}, {"unknown", b.tolerance_unknown}}},
          {"mismatch_tolerance", groups},
          {"not_run", not_run}};
}

Table not_run_table(const CampaignAnalysis& a, Tidy& tidy) {
  Table t;
  t.id = "not_run";
  t.title = "Models not run, by reason (the harness's limits: no verdict on the converter)";
  t.header = {"Reason", "Models"};
  for (const auto& [reason, n] : a.breakdown.not_run) {
    t.rows.push_back({reason, std::to_string(n)});
    tidy.push_back({reason, "Models", std::to_string(n)});
  }
  return t;
}

}  // namespace convfail::campaign
