// Rendering a report in one format. Each format lives in its own render_<format>.cpp.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/taxonomy.h"
#include "reports/report_data.h"
#include "reports/report_tables.h"

namespace convfail::reports {

enum class ReportFormat { kMarkdown, kCsv, kLatex, kHtml, kJson };

// "md" | "csv" | "latex" | "html" | "json"; UsageError otherwise.
ReportFormat parse_report_format(const std::string& name);

std::string render_markdown(const PrintedReport& report);
// One CSV in long form: table,row,column,value (RFC 4180 quoting), formula cells neutralised
// (core/csv.h) unless `raw`.
std::string render_csv(const PrintedReport& report, bool raw = false);
// One booktabs table environment per table, labelled tab:ID with - for _ (tab:stage-by-converter):
// fragments to \input (they need \usepackage{booktabs}); `standalone`: a complete document.
std::string render_latex(const PrintedReport& report, bool standalone = false);
// One self-contained XHTML page: tables, inline SVG bar charts, print CSS; no script, no links.
std::string render_html(const PrintedReport& report);
// The full unbinned counts (report_data.h) as JSON.
std::string render_json(const ReportData& data);
// One RuntimeHistory as `report --json` prints it in runtime_history (issue, symptom, model, from,
// to, first_bad, regressed_in, fixed_in, newest_known, still_failing, summary).
nlohmann::json runtime_history_json(const RuntimeHistory& h);

// `raw_csv`: CSV cells are written as they are, formulas included (--raw-csv).
// `latex_standalone`: LaTeX as a whole document (--standalone) instead of table fragments.
std::string render_report(const ReportData& data, const Taxonomy& taxonomy, ReportFormat format,
                          bool raw_csv = false, bool latex_standalone = false);

}  // namespace convfail::reports
