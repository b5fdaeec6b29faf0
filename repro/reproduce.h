// Re-executes one ONNX model: structure checks with libonnx (parse, checker, strict shape
// inference), then ONNX Runtime with graph optimizations disabled and all enabled on given or
// generated inputs, then comparison against reference outputs and between the two sessions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>
#include <nlohmann/json.hpp>

#include "exec/compare.h"
#include "exec/ort_runner.h"
#include "repro/run_verdict.h"
#include "repro/verdicts.h"

namespace convfail::repro {

// The reason of a model whose external data would be read from outside its folder.
inline constexpr const char* kExternalDataOutside = "external data outside the model's directory";

// The default of --max-elements: the largest generated or given input, in elements.
inline constexpr std::int64_t kDefaultMaxElements = std::int64_t{1} << 28;
inline constexpr std::int64_t kMaxMaxElements = std::int64_t{1} << 40;

struct ReproOptions {
  exec::Tolerance tolerance;
  std::int64_t max_elements = kDefaultMaxElements;  // per input tensor (declared or given)
  double timeout_seconds = 60;                      // per model (runner wall clock)
  std::map<std::string, std::int64_t> dims;         // symbolic dimension values (default 1)
  std::string inputs_dir;     // input_N.pb (and output_N.pb: reference outputs); empty = generate
  std::uint64_t seed = 1;     // generated inputs
  bool save_outputs = false;  // keep ONNX Runtime's outputs in RunVerdict::outputs
};

// The ONNX version convfail's checker implements.
std::string onnx_library_version();

// Why an ONNX Runtime session error means the release predates the model (an IR version, an
// opset or an operator it does not know), e.g. "predates the model's opset 21"; "" otherwise
// (then the error is the model's crash). Such a run is not_runnable with that reason.
std::string runtime_lacks_support(const std::string& error);

// Parses the model, checks it (opsets, external data, libonnx checker and strict shape inference
// in a sandboxed child: `convfail __check-model`), then runs it in `runner`. Texts from the model
// or the runtime are cut and made printable before they are stored (reason, error, signature).
RunVerdict reproduce_model(exec::OrtRunner& runner, const std::string& model_path,
                           const ReproOptions& options);

// Whether every tensor with external data (initializers, Constant attributes, subgraphs,
// functions) names a relative `location` that, with symlinks resolved, lies inside `model_dir`.
bool external_data_inside(const onnx::ModelProto& model, const std::string& model_dir);
// The same walk, keeping what it checks: every external data `location` the model names (each
// once, in the order met), or nullopt when one is not inside `model_dir`.
std::optional<std::vector<std::string>> external_data_locations(const onnx::ModelProto& model,
                                                                const std::string& model_dir);

// The checker child (exec::OrtRunner::check): when argv[1] is exec::kCheckModelCommand, reads one
// JSON request
// {"model": PATH} per stdin line, runs the libonnx checker and strict shape inference and answers
// one line {"ok": true} (a request with "node": NAME also gets "kernel_types": that node's
// kernel_types.h) or {"fail": "checker"|"shape_inference"|"read", "error": TEXT} (step
// markers on stderr); returns the exit code at end of input. Else returns -1. Every program that
// calls reproduce_model calls this first thing in main() (convfail, unit_tests, bench_reproduce):
// the checker child is the running executable (/proc/self/exe).
int check_model_main(int argc, char** argv);

}  // namespace convfail::repro
