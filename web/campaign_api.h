// The campaign pages of `convfail serve`: the converter campaigns of `convfail test` and each
// one's report, printed by campaign's report/campaign_report through reports' renderers (the report
// `convfail report --campaign ID` prints), with each failure group's ONNX Runtime history.
#pragma once

#include <nlohmann/json.hpp>

#include "core/db.h"
#include "web/api.h"

namespace convfail::web {

// GET /api/campaigns: {"campaigns": [{id, created_at, finished_at, finished, models, outcomes
// (outcome -> models), mismatch_modes, groups, config, versions}]}, newest first.
nlohmann::json campaigns_json(Db& db);

// GET /api/campaigns/{id}?format=html|json|md|csv|latex (default html): the campaign's report.
// 400 for a malformed id or format, 404 for an unknown campaign.
ReportText campaign_report_text(Db& db, const std::string& id, const Params& params);

// GET /api/campaigns/{A}/compare/{B}?format=html|json|md|csv|latex (default html): the two
// campaigns compared as `convfail test compare A B` prints them
// (campaign/analysis/campaign_compare).
ReportText campaign_compare_text(Db& db, const std::string& a, const std::string& b,
                                 const Params& params);

// GET /api/support?format=html|json|md|csv|latex (default json): every stored support matrix
// (`convfail test support --no-measure`: cells per class, gaps with the first release where they
// work, the operator x type table per release and opset). Nothing is measured here.
ReportText support_text(Db& db, const Params& params);

}  // namespace convfail::web
