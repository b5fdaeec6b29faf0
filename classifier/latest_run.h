// The latest complete classify run (runs still being written, in_progress = 1, are invisible):
// the one place that query is spelled, for the classifier and the modules that may include it.
#pragma once

#include <cstdint>

#include "core/db.h"

namespace convfail::classifier {

// The id of the latest complete run; 0 when there is none.
inline std::int64_t latest_run_id(Db& db) {
  return db.scalar("SELECT coalesce(max(id), 0) FROM classifier_runs WHERE in_progress = 0");
}

}  // namespace convfail::classifier
