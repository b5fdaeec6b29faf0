// From a repro script to one of the four verdicts (crash_reproduced, wrong_output_reproduced,
// not_reproduced, not_runnable): the static checks before running, the harness's report, and the
// outcome of re-executing each exported model against the eager outputs.
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "repro/scripts/script_runner.h"

namespace convfail::repro {

struct ScriptVerdict {
  std::string
      verdict;       // crash_reproduced | wrong_output_reproduced | not_reproduced | not_runnable
  std::string step;  // static | script | export | eager | timeout | (a model step: checker, run,
                     // compare, ...)
  std::string signature;    // normalised error, for crashes
  std::string reason;       // for not_runnable
  std::string output_name;  // for wrong outputs
  double max_abs_error = std::numeric_limits<double>::quiet_NaN();
  double max_rel_error = std::numeric_limits<double>::quiet_NaN();
  std::string ort_version, onnx_version;
  nlohmann::json details = nlohmann::json::object();
  // For people (the signature is for grouping): the real error, multi-line, already cut and
  // escaped (the exception's "Type: message", the exported model's checker or runtime error,
  // the harness's last words), and the script's traceback when an exception decided.
  std::string message, traceback;
};

// Checks made before anything runs. nullopt when the script may run; otherwise a not_runnable
// verdict: "no code", "missing module: X[, Y]", "no export call". `missing` looks modules up.
std::optional<ScriptVerdict> static_check(
    const std::string& code,
    const std::function<std::vector<std::string>(const std::vector<std::string>&)>& missing);

// What re-executing one exported model gave (the reproduce flow: checker, ONNX Runtime, comparison
// with the eager outputs when the export is comparable). verdict uses the same four values.
struct ModelOutcome {
  std::string verdict, step, signature, reason, output_name;
  std::string message;  // the checker's or runtime's own error text (ModelVerdict::error)
  double max_abs_error = std::numeric_limits<double>::quiet_NaN();
  double max_rel_error = std::numeric_limits<double>::quiet_NaN();
  std::string ort_version, onnx_version;
  nlohmann::json details = nlohmann::json::object();
};
using ModelEvaluator = std::function<ModelOutcome(const HarnessExport&)>;

// The verdict for a script that ran (or tried to). `evaluate` is called once per exported model.
ScriptVerdict decide_script_verdict(const ScriptRun& run, const ModelEvaluator& evaluate);

}  // namespace convfail::repro
