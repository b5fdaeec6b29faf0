#include "repro/run_verdict.h"

namespace convfail::repro {

using nlohmann::json;

RunVerdict model_run_verdict(const std::string& model_path) {
  RunVerdict v;
  v.model_path = model_path;
  v.max_abs_error = 0;
  v.max_rel_error = 0;
  return v;
}

json number_or_null(const std::optional<double>& v) {
  return v ? json(*v) : json();
}

json model_run_json(const RunVerdict& v) {
  json j = {{"model", v.model_path},
            {"verdict", v.verdict},
            {"step", v.step.empty() ? json() : json(v.step)},
            {"max_abs_error", number_or_null(v.max_abs_error)},
            {"max_rel_error", number_or_null(v.max_rel_error)},
            {"ort_version", v.ort_version},
            {"onnx_version", v.onnx_version},
            {"duration_ms", v.duration_ms}};
  if (!v.signature.empty()) j["signature"] = v.signature;
  if (!v.reason.empty()) j["reason"] = v.reason;
  if (!v.harness_note.empty()) j["harness_note"] = v.harness_note;
  if (!v.output_name.empty()) j["output"] = v.output_name;
  // "error" is the key model results had before "message"; both are kept.
  if (!v.message.empty()) j["error"] = v.message;
  // The keys every reproduce result has (script runs add a traceback).
  j["message"] = v.message.empty() ? json() : json(v.message);
  j["traceback"] = json();
  json checks_json = json::array();
  for (const auto& c : v.checks) {
    json cj = {{"output", c.output},
               {"against", c.against},
               {"level", c.level},
               {"match", c.result.match},
               {"max_abs_error", c.result.max_abs_error},
               {"max_rel_error", c.result.max_rel_error}};
    if (!c.result.problem.empty()) cj["problem"] = c.result.problem;
    checks_json.push_back(cj);
  }
  if (!checks_json.empty()) j["outputs"] = checks_json;
  return j;
}

}  // namespace convfail::repro
