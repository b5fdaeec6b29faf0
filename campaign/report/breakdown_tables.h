// campaign/analysis/campaign_breakdown.h's figures as report tables (Markdown, CSV, LaTeX, HTML
// through reports/) and as JSON: the study's Table 11 per family and per type beside its figures,
// ONNX Runtime failures by operator and type, the tolerance curve (a table and a chart) and each
// mismatch group's smallest passing tolerance. campaign_report.cpp puts them in the report.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "campaign/analysis/campaign_analysis.h"
#include "reports/report_tables.h"

namespace convfail::campaign {

// "1e-3" for 0.001 (the curve's tolerances), "3.2e-05" for another t (%.1e), "none" for >= 1e308.
std::string tolerance_text(double t);

// Table 11 per family of real models (id outcomes_by_family) and per type of synthetic models
// (outcomes_by_dtype: each model once, under its main type), each with the study's figures as a
// reference row.
reports::Table family_table(const CampaignAnalysis& a, std::vector<reports::TableValue>& tidy);
reports::Table dtype_table(const CampaignAnalysis& a, std::vector<reports::TableValue>& tidy);
// The second per-type table: a synthetic model in the row of every type it touches
// (outcomes_by_touched_dtype; rows overlap).
reports::Table touched_dtype_table(const CampaignAnalysis& a,
                                   std::vector<reports::TableValue>& tidy);

// ONNX Runtime failures by operator (and its version) x element type: missing kernels.
reports::Table kernel_table(const CampaignAnalysis& a, std::vector<reports::TableValue>& tidy);

// Models failing at atol = rtol = t per kind of difference (tolerance_curve), its chart, and each
// mismatch group's smallest passing tolerance (mismatch_tolerance).
reports::Table tolerance_table(const CampaignAnalysis& a, std::vector<reports::TableValue>& tidy);
reports::BarChart tolerance_chart(const CampaignAnalysis& a);
reports::Table group_tolerance_table(const CampaignAnalysis& a,
                                     std::vector<reports::TableValue>& tidy);

// The not_run models by reason (id not_run).
reports::Table not_run_table(const CampaignAnalysis& a, std::vector<reports::TableValue>& tidy);

// All of it as the report's JSON: {"outcomes_by_family", "outcomes_by_dtype", "ort_kernels",
// "tolerance_curve", "mismatch_tolerance", "not_run"}.
nlohmann::json breakdown_json(const CampaignAnalysis& a);

}  // namespace convfail::campaign
