// The `reproduce --scripts` flow: for an issue, extract its program, check it statically, run it
// through the harness in the sandbox, re-execute the exported models, decide and store a verdict.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
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

// Why an issue with a script artifact is not run (script_issue_ids' `not_taken`).
inline constexpr const char* kNotTorchScript =
    "its script does not use PyTorch (only torch.onnx programs are re-run)";
inline constexpr const char* kNoPythonProgram =
    "its script is not a Python block of the body or of the reporter's comments, which is "
    "what runs";

// Issues whose extracted program (extract_script) mentions torch, in id order. When `artifacts
// scan` stored script artifacts, only issues with a torch script artifact are candidates; when it
// never ran, every issue is; *scanned tells which. `not_taken` gets the issues with a script
// artifact that are left out, each with why (kNotTorchScript, kNoPythonProgram).
std::vector<std::int64_t> script_issue_ids(
    Db& db, bool* scanned = nullptr, std::map<std::int64_t, std::string>* not_taken = nullptr);

// The first script artifact of an issue that is part of the program that ran (its code occurs in
// script_code); none when the program came from blocks the scan did not record.
std::optional<std::int64_t> script_artifact_id(Db& db, std::int64_t issue_id,
                                               const std::string& script_code);

}  // namespace convfail::repro
