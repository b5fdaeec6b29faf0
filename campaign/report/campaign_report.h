// The campaign report: campaign/analysis/campaign_analysis.h printed through reports/'s renderers
// (Markdown, CSV, LaTeX, HTML with SVG charts) or as JSON. `convfail report --campaign ID` and
// `convfail test report` both print it with campaign_report().
#pragma once

#include <cstdint>
#include <string>

#include "campaign/analysis/campaign_analysis.h"
#include "core/db.h"
#include "reports/render.h"
#include "reports/report_tables.h"

namespace convfail::campaign {

// Tables: outcomes (per source and node count), operator_sets, operator_enrichment,
// operator_enrichment_mismatch, sequences, reduced_sequences, ngram_enrichment, coverage (with
// suites), defects; charts: outcomes per node count, operator enrichment (ranked by q).
reports::PrintedReport printed_campaign_report(const CampaignAnalysis& a);

// Every figure of the analysis (long lists cut to the significant rows and the first 100).
std::string campaign_report_json(const CampaignAnalysis& a);

// Analyses campaign `campaign_id` and renders it. UserError when the campaign does not exist,
// a stored row is malformed or a suite folder is missing.
std::string campaign_report(Db& db, std::int64_t campaign_id, reports::ReportFormat format,
                            const CampaignAnalysisOptions& options = {}, bool raw_csv = false,
                            bool latex_standalone = false);

}  // namespace convfail::campaign
