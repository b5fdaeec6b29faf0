// The one writer of repro_runs: a re-run of an attached model (`reproduce`) and a re-run of a
// repro script (`reproduce --scripts`) both become one row through store_repro_run.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "core/db.h"

namespace convfail::repro {

// One repro_runs row (schema/0005_artifacts_repro.sql, 0006_script_runs.sql). Empty strings and
// NaN errors are stored as NULL; started_at is set by the database.
struct ReproRunRow {
  std::optional<std::int64_t> issue_id;     // none for `reproduce --model`
  std::optional<std::int64_t> artifact_id;  // the model, archive or script artifact
  std::string model_path;                   // model runs only
  std::string
      verdict;  // crash_reproduced | wrong_output_reproduced | not_reproduced | not_runnable
  std::string step, signature, reason, output_name;
  double max_abs_error = std::numeric_limits<double>::quiet_NaN();
  double max_rel_error = std::numeric_limits<double>::quiet_NaN();
  std::string ort_version, onnx_version, torch_version;
  double duration_ms = 0;
  std::string details_json;
  std::string script_source;  // script runs only: body | comments | none
  std::string script_sha256;  // script runs only
};

// Appends the row and returns its id. The caller owns the transaction. Throws UserError on an
// empty verdict (the column is NOT NULL).
std::int64_t store_repro_run(Db& db, const ReproRunRow& row);

}  // namespace convfail::repro
