// How `reproduce` prints what the library returns (repro/repro_command.h,
// repro/scripts/script_command.h): a text line per model or script with the message under it,
// or its JSON (result_output.h), and the totals.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/result_output.h"
#include "repro/repro_command.h"
#include "repro/scripts/script_command.h"

namespace convfail::cli {

// One model of `reproduce` (issue, --all, --model, --suite) as it comes.
void print_reproduced(ResultOutput& output, const repro::ReproducedModel& m);

// After the last model (and --all's scripts): the totals (JSON, JSON Lines; with --all's
// "summary" beside them) and, in text, a --suite or --all run's summary.
void finish_reproduce(ResultOutput& output, const repro::ReproduceResult& result,
                      std::ostream& out);

// One script of `reproduce --scripts` (an issue's reference or the script file's path).
void print_script_result(ResultOutput& output, const repro::ScriptedProgram& s);

// After the last script: the totals and, in text, "N script(s): VERDICT COUNT ...". A
// --script-file run prints no text summary.
void finish_scripts(ResultOutput& output, const repro::ScriptsCommandResult& result,
                    bool script_file, std::ostream& out);

}  // namespace convfail::cli
