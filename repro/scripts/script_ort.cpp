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
    RunVerdict m = reproduce_model(runner, x.model_path, o);
    m.details = model_run_json(m);
    m.details["reference"] = x.comparable() ? "eager" : "none";
    return m;
  };
}

}  // namespace convfail::repro
