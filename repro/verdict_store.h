// The one writer of repro_runs: a re-run of an attached model (`reproduce`) and a re-run of a
// repro script (`reproduce --scripts`) both become one row through store_run; and the
// reader of an issue's latest verdicts for other modules (classify's execution evidence), which
// get them as plain data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"
#include "repro/run_verdict.h"

namespace convfail::repro {

// The longest message and traceback stored (bytes, cut on a UTF-8 boundary, "..." added).
inline constexpr std::size_t kMaxMessageBytes = 2000;
inline constexpr std::size_t kMaxTracebackBytes = 4000;

// A script run's program: the columns of its repro_runs row beside the verdict.
struct ScriptInfo {
  std::string source;         // body | comments | file; empty: no code block found ("none")
  std::string sha256;         // of the program that ran
  std::string torch_version;  // as the harness reported it; empty when the script never ran
  int blocks = 0;             // the code blocks it was built from (stored in details_json)
};

// Where a run came from: the rest of its repro_runs row.
struct RunOrigin {
  std::optional<std::int64_t> issue_id;     // none for `reproduce --model`
  std::optional<std::int64_t> artifact_id;  // the model, archive or script artifact
  std::optional<ScriptInfo> script;         // a script run's program; none: a model run
};

// Appends one run as a repro_runs row (schema/0005_artifacts_repro.sql, 0006_script_runs.sql,
// 0013_repro_messages.sql) and returns its id: the one conversion of a verdict to a row. Empty
// strings and unset numbers are stored as NULL; started_at is set by the database. details_json
// is a model run's model_run_json with the sandbox it had ("isolation"), a script run's details
// with its "blocks". The message and traceback are stored cut (kMaxMessageBytes,
// kMaxTracebackBytes) and with control characters escaped whatever the caller passed. The
// caller owns the transaction. Throws UserError on an empty verdict (the column is NOT NULL).
std::int64_t store_run(Db& db, const RunVerdict& verdict, const RunOrigin& origin);

// A stored run as `show` prints it; NULL columns are nullopt.
struct StoredReproRun {
  std::int64_t id = 0;
  std::string verdict, started_at;
  std::optional<std::string> step, signature, reason, output_name, message, traceback;
  std::optional<double> max_abs_error;
  bool script = false;  // a script run (script_source set), else a model run
  // Which program ran, as latest_verdicts tells them apart: "script" (an issue's script runs are
  // one program), else "model:ARTIFACT_ID:MODEL_PATH"; and its file name ("script" for scripts).
  std::string program, program_name;
};

// The runs of one issue, in the order they were stored.
std::vector<StoredReproRun> issue_repro_runs(Db& db, std::int64_t issue_id);

// One stored verdict as other modules read it.
struct StoredVerdict {
  std::int64_t id = 0;  // repro_runs.id
  std::int64_t issue_id = 0;
  std::string kind;  // script (a `reproduce --scripts` run) | model (an attached model)
  std::string
      verdict;  // crash_reproduced | wrong_output_reproduced | not_reproduced | not_runnable
  std::string step, signature, started_at;
};

// The latest verdict of each program an issue re-ran: its latest script run, and the latest run of
// each attached model (by artifact and model path); by id.
std::vector<StoredVerdict> latest_verdicts(Db& db, std::int64_t issue_id);
// The issues with at least one run of this verdict (the web's verdict filter).
std::vector<std::int64_t> issues_with_verdict(Db& db, const std::string& verdict);
// The same for every issue with a run, by issue id.
std::map<std::int64_t, std::vector<StoredVerdict>> latest_verdicts_by_issue(Db& db);
// The verdict of each issue's latest run, whatever program it ran: what the report's section 7
// counts per labeled issue. By issue id.
std::map<std::int64_t, std::string> latest_issue_verdicts(Db& db);

}  // namespace convfail::repro
