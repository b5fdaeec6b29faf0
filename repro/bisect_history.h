// The stored bisects read back (schema 0015's bisects, as bisect_command stores them): the one
// reader of that table, for the repro report's section 7, the campaign report's defects and the
// web's issue and campaign pages.
#pragma once

#include <vector>

#include "core/db.h"
#include "repro/runtime_history.h"

namespace convfail::repro {

// The latest bisect of each model of each issue and campaign group. By issue (OWNER/REPO#N), then
// group, then bisect.
std::vector<RuntimeHistory> runtime_histories(Db& db);

}  // namespace convfail::repro
