// A campaign comparison (campaign/analysis/campaign_compare.h) printed: the differing settings
// first, then the models matched, the outcome transitions and the failure groups (new, still
// failing, fixed), through reports/'s renderers (Markdown, tidy CSV, LaTeX, HTML) or as JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "campaign/analysis/campaign_compare.h"
#include "reports/render.h"

namespace convfail::campaign {

// Tables: differences, models, transitions, groups.
reports::PrintedReport printed_comparison(const Comparison& c);

nlohmann::json comparison_json(const Comparison& c);

// In `format`; `raw_csv` keeps formula-like cells as they are.
std::string comparison_report(const Comparison& c, reports::ReportFormat format,
                              bool raw_csv = false);

}  // namespace convfail::campaign
