// The repro verdicts classify, train and explain use as execution evidence: read through repro's
// reader (repro owns repro_runs) and handed to the classifier as plain data.
#pragma once

#include <cstdint>
#include <vector>

#include "classifier/execution_evidence.h"
#include "core/db.h"

namespace convfail::cli {

// Every issue's latest verdicts, by issue id.
classifier::ExecutionVerdicts stored_verdicts(Db& db);
// One issue's.
std::vector<classifier::ExecutionVerdict> stored_verdicts(Db& db, std::int64_t issue_id);

}  // namespace convfail::cli
