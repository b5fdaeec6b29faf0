// `convfail reproduce --scripts [OWNER/REPO#N ... | --all]`: selection, runs, storage, printing.
// The CLI only parses arguments and calls run_scripts_command().
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/db.h"
#include "repro/reproduce.h"
#include "repro/scripts/script_repro.h"

namespace convfail::repro {

struct ScriptsCommandArgs {
  std::vector<std::string> issues;  // OWNER/REPO#N
  bool all = false;                 // every issue with a torch script artifact
  std::string script_file;          // or one local script (not stored)
  bool json = false;                // one JSON object per issue, then a summary object
  bool progress = false;            // progress lines on stderr
  bool store = true;                // append repro_runs rows
  ScriptRunOptions run;
  ReproOptions repro;  // tolerances and per-model timeout for the exported models
  std::uint64_t runner_memory_mb = 4096;
};

// "owner/repo#12" -> ("owner/repo", 12). Throws UsageError when malformed.
std::pair<std::string, std::int64_t> parse_issue_ref(const std::string& ref);

// Runs the selected issues' scripts and prints one line (or JSON object) per issue and a summary.
// Returns the number of issues processed. Throws UserError for an unknown issue or an empty
// selection.
// `db` may be null with script_file.
int run_scripts_command(Db* db, const ScriptsCommandArgs& args, const ModelEvaluator& evaluate,
                        std::ostream& out, std::ostream& err);

// The same with the exported models re-executed by ONNX Runtime (a warm sandboxed runner).
int run_scripts_command(Db* db, const ScriptsCommandArgs& args, std::ostream& out,
                        std::ostream& err);

}  // namespace convfail::repro
