#include "repro/scripts/script_ort.h"

#include <filesystem>

namespace convfail::repro {

ModelEvaluator make_ort_evaluator(exec::OrtRunner& runner, const ReproOptions& options) {
  return [&runner, options](const HarnessExport& x) {
    ReproOptions o = options;
    // The harness writes input_N.pb only when they match the graph inputs, and output_N.pb only
    // when, in addition, the eager outputs match the graph outputs; otherwise inputs are generated.
    o.inputs_dir = x.inputs_match_graph && !x.inputs.empty()
                       ? std::filesystem::path(x.model_path).parent_path().string()
                       : std::string();
    ModelVerdict mv = reproduce_model(runner, x.model_path, o);
    ModelOutcome m;
    m.verdict = mv.verdict;
    m.step = mv.step;
    m.signature = mv.signature;
    m.message = mv.error;
    m.reason = mv.reason;
    m.output_name = mv.output_name;
    m.max_abs_error = mv.max_abs_error;
    m.max_rel_error = mv.max_rel_error;
    m.ort_version = mv.ort_version;
    m.onnx_version = mv.onnx_version;
    m.details = mv.to_json();
    m.details["reference"] = x.comparable() ? "eager" : "none";
    return m;
  };
}

}  // namespace convfail::repro
