// `report --per-issue`: the flat table, one row per issue of a label source, with each
// dimension's label, confidence and origin and the issue's latest repro verdict (for pandas, R).
#pragma once

#include <string>

#include "core/db.h"
#include "core/taxonomy.h"
#include "reports/render.h"
#include "reports/report_data.h"

namespace convfail::reports {

// CSV (header repo,number,converter,created_at, then per dimension symptom, cause, subtype, stage
// the label, DIM_confidence and DIM_origin, then verdict) or JSON (an array of objects with the
// same keys, null where empty). Confidence: the classifier's (calibrated where the hybrid source
// used a calibration), empty for manual labels. Origin: manual or automatic. Verdict: the latest
// repro run's, empty when the issue never ran. Issues as in a report (--repo/--since/--until).
// UsageError for another format.
std::string render_per_issue(Db& db, const Taxonomy& taxonomy, const ReportOptions& options,
                             ReportFormat format, bool raw_csv = false);

}  // namespace convfail::reports
