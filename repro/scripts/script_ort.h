// Feeds a script's exported models into the model reproduce flow (reproduce_model: checker,
// shape inference, ONNX Runtime, comparison), with the harness's saved inputs and eager outputs
// (input_N.pb / output_N.pb beside model.onnx) as inputs and reference when they line up.
#pragma once

#include "repro/reproduce.h"
#include "repro/scripts/script_verdict.h"

namespace convfail::repro {

// The evaluator keeps references to `runner`: both must outlive its use.
ModelEvaluator make_ort_evaluator(exec::OrtRunner& runner, const ReproOptions& options);

}  // namespace convfail::repro
