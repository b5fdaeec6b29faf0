// `convfail reproduce --scripts [ISSUE ... | --all]`: selection, runs, storage, printing.
// The CLI only parses arguments and calls run_scripts_command().
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/db.h"
#include "repro/reproduce.h"
#include "repro/result_output.h"
#include "repro/scripts/script_repro.h"

namespace convfail::repro {

struct ScriptsCommandArgs {
  std::vector<std::string> issues;            // OWNER/REPO#N or issue URLs (core/issue_ref.h)
  std::string script_file;                    // or one local script (not stored)
  OutputFormat format = OutputFormat::kText;  // results and totals (repro/result_output.h)
  bool progress = false;                      // progress lines on stderr
  bool store = true;                          // append repro_runs rows
  int limit = 0;                              // run at most this many scripts (0 = all)
  ScriptRunOptions run;
  ReproOptions repro;  // tolerances and per-model timeout for the exported models
  std::uint64_t runner_memory_mb = 4096;
};

// Issues to run: (issue id, "OWNER/REPO#N").
using IssueList = std::vector<std::pair<std::int64_t, std::string>>;

// Runs each issue's script (extract_script, reproduce_script), stores the run unless
// !args.store, prints its result to `output` and counts its verdict; progress lines on `err` when
// args.progress. Returns how many ran. What run_scripts_command and `reproduce --all` share.
int run_script_issues(Db& db, const IssueList& issues, const ScriptsCommandArgs& args,
                      const ModelEvaluator& evaluate, ResultOutput& output, std::ostream& err,
                      std::map<std::string, int>& verdicts);

// Runs the scripts of the given issues (or the one script_file) and prints one result per issue
// and the totals (`reproduce --scripts --all` is run_reproduce's). Returns the number of issues
// processed. Throws UserError for an unknown issue. `db` may be null with script_file.
int run_scripts_command(Db* db, const ScriptsCommandArgs& args, const ModelEvaluator& evaluate,
                        std::ostream& out, std::ostream& err);

// The same with the exported models re-executed by ONNX Runtime (a warm sandboxed runner).
int run_scripts_command(Db* db, const ScriptsCommandArgs& args, std::ostream& out,
                        std::ostream& err);

}  // namespace convfail::repro
