// `convfail reproduce --all`: scan every issue for artifacts, then re-run what can run (fetched
// models and archives, PyTorch scripts) and say why every other issue ran nothing.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/db.h"
#include "exec/ort_runner.h"
#include "repro/repro_command.h"

namespace convfail::repro {

// Why an issue runs nothing (ReproduceSummary::skipped), besides script_repro.h's reasons.
inline constexpr const char* kModelNotFetched =
    "model link not fetched yet (convfail artifacts fetch)";
inline constexpr const char* kModelFetchFailed =
    "model download failed or was skipped (convfail artifacts list)";
inline constexpr const char* kFileHostOnly = "only links to file hosts, which are not fetched";
inline constexpr const char* kNothingFound = "no model link, archive or script in its text";
inline constexpr const char* kScriptNotSelected =
    "a script, left out by --models (reproduce --all runs it)";
inline constexpr const char* kModelNotSelected =
    "a fetched model, left out by --scripts (reproduce --all runs it)";

// What --all runs: the issues with a fetched model (or archive), the issues with a PyTorch
// program (script_issue_ids), and for each issue of the store that runs nothing, why.
struct AllSelection {
  IssueList model_issues;
  IssueList script_issues;
  std::map<std::int64_t, std::string> skipped;  // issue id -> why
};

// `models` / `scripts`: whether each kind is run (--models, --scripts take one of them).
AllSelection select_all(Db& db, bool models, bool scripts);

// --all: scan (artifacts scan on every issue), select, run the models and then the scripts
// within --limit, each stored and added to `result` (progress told as each goes); sets
// result.summary. Prints nothing.
void reproduce_all(Db& db, const ReproduceRequest& req, exec::OrtRunner& runner,
                   const ReproduceProgress& progress, ReproduceResult& result);

}  // namespace convfail::repro
