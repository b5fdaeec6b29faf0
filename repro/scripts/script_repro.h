// The `reproduce --scripts` flow: for an issue, extract its program, check it statically, run it
// through the harness in the sandbox, re-execute the exported models, decide and store a verdict.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"
#include "repro/scripts/script_extract.h"
#include "repro/scripts/script_verdict.h"
#include "repro/verdict_store.h"

namespace convfail::repro {

// A program's run: its verdict (duration_ms: the whole run, static checks included) and the
// program (source and blocks are the caller's to fill: it extracted the program).
struct ScriptReproResult {
  RunVerdict verdict;
  ScriptInfo script;
  bool ran = false;  // the harness was started (static checks passed)
};

using MissingModules = std::function<std::vector<std::string>(const std::vector<std::string>&)>;

// Runs one program. `missing` defaults to asking options.python.
ScriptReproResult reproduce_script(const std::string& code, const ScriptRunOptions& options,
                                   const ModelEvaluator& evaluate,
                                   const MissingModules& missing = nullptr);

// The issue's author, body and comments from the store. Throws UserError when unknown.
IssueText load_issue_text(Db& db, std::int64_t issue_id);

// Issues whose extracted program (extract_script) mentions torch, in id order. When `artifacts
// scan` stored script artifacts, only issues with a torch script artifact are candidates; when it
// never ran, every issue is; *scanned tells which.
std::vector<std::int64_t> script_issue_ids(Db& db, bool* scanned = nullptr);

// The first script artifact of an issue that is part of the program that ran (its code occurs in
// script_code); none when the program came from blocks the scan did not record.
std::optional<std::int64_t> script_artifact_id(Db& db, std::int64_t issue_id,
                                               const std::string& script_code);

}  // namespace convfail::repro
