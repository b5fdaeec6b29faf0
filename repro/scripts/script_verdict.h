// From a repro script to one of the four verdicts (crash_reproduced, wrong_output_reproduced,
// not_reproduced, not_runnable): the static checks before running, the harness's report, and the
// outcome of re-executing each exported model against the eager outputs.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "repro/run_verdict.h"
#include "repro/scripts/script_runner.h"

namespace convfail::repro {

// Checks made before anything runs. nullopt when the script may run; otherwise a not_runnable
// verdict: "no code", "missing module: X[, Y]", "no export call". `missing` looks modules up.
std::optional<RunVerdict> static_check(
    const std::string& code,
    const std::function<std::vector<std::string>(const std::vector<std::string>&)>& missing);

// What re-executing one exported model gave (the reproduce flow: checker, ONNX Runtime, comparison
// with the eager outputs when the export is comparable).
using ModelEvaluator = std::function<RunVerdict(const HarnessExport&)>;

// The verdict for a script that ran (or tried to), decided in phases: the harness did not report,
// the script's exception, an export that raised, the exported models. `evaluate` is called once
// per exported model. Step: static | script | export | eager | timeout | harness (or the model's).
RunVerdict decide_script_verdict(const ScriptRun& run, const ModelEvaluator& evaluate);

}  // namespace convfail::repro
