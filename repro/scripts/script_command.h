// `convfail reproduce --scripts [ISSUE ... | --script-file FILE]`: selection, runs, storage
// (`--all` is run_reproduce's, repro/reproduce_all.h). Returns what ran;
// the command line parses the arguments and prints (cli/repro_output.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/db.h"
#include "repro/reproduce.h"
#include "repro/scripts/script_repro.h"

namespace convfail::repro {

struct ScriptsCommandArgs {
  std::vector<std::string> issues;  // OWNER/REPO#N or issue URLs (core/issue_ref.h)
  std::string script_file;          // or one local script (not stored)
  bool store = true;                // append repro_runs rows
  int limit = 0;                    // run at most this many scripts (0 = all)
  ScriptRunOptions run;
  ReproOptions repro;  // tolerances and per-model timeout for the exported models
  std::uint64_t runner_memory_mb = 4096;
};

// One program run: an issue's (`name` its OWNER/REPO#N) or the script file (its path).
struct ScriptedProgram {
  std::string name;
  ScriptReproResult result;
};

struct ScriptsCommandResult {
  std::vector<ScriptedProgram> programs;  // in the order run
  std::map<std::string, int> verdicts;    // verdict -> programs
};

// Called as the command goes: `starting` before each issue's program (its number from 1, the
// number selected, its reference), `done` after each program.
struct ScriptsProgress {
  std::function<void(int n, std::size_t selected, const std::string& ref)> starting;
  std::function<void(const ScriptedProgram&)> done;
};

// An issue's program: extracted (extract_script), run and, unless !args.store, stored. What
// run_scripts_command and `reproduce --all` share.
ScriptReproResult run_issue_script(Db& db, std::int64_t issue_id, const ScriptsCommandArgs& args,
                                   const ModelEvaluator& evaluate);

// Runs the given issues' scripts (or the script file) and stores their verdicts. Throws
// UserError for an unknown issue, UsageError for no or several modes.
// `db` may be null with script_file.
ScriptsCommandResult run_scripts_command(Db* db, const ScriptsCommandArgs& args,
                                         const ModelEvaluator& evaluate,
                                         const ScriptsProgress& progress = {});

// The same with the exported models re-executed by ONNX Runtime (a warm sandboxed runner).
ScriptsCommandResult run_scripts_command(Db* db, const ScriptsCommandArgs& args,
                                         const ScriptsProgress& progress = {});

}  // namespace convfail::repro
