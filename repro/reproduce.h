// Re-executes one ONNX model: structure checks with libonnx (parse, checker, strict shape
// inference), then ONNX Runtime with graph optimizations disabled and all enabled on given or
// generated inputs, then comparison against reference outputs and between the two sessions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "repro/compare.h"
#include "repro/ort_runner.h"

namespace convfail::repro {

// Verdict values (stored in repro_runs.verdict; reports reads them).
inline constexpr const char* kCrashReproduced = "crash_reproduced";
inline constexpr const char* kWrongOutputReproduced = "wrong_output_reproduced";
inline constexpr const char* kNotReproduced = "not_reproduced";
inline constexpr const char* kNotRunnable = "not_runnable";

struct ReproOptions {
  Tolerance tolerance;
  double timeout_seconds = 60;               // per model (runner wall clock)
  std::map<std::string, std::int64_t> dims;  // symbolic dimension values (default 1)
  std::string inputs_dir;  // input_N.pb (and output_N.pb: reference outputs); empty = generate
  std::uint64_t seed = 1;  // generated inputs
};

struct OutputCheck {
  std::string output;
  std::string against;  // reference | optimized  (all-optimizations vs disabled)
  std::string level;    // the session compared (disabled | all)
  CompareResult result;
};

struct ModelVerdict {
  std::string model_path;
  std::string verdict;
  std::string step;       // parse | checker | shape_inference | inputs | session | run | compare
  std::string signature;  // normalised error text (crash) or "output X: N of M elements differ"
  std::string error;      // raw error text (first lines)
  std::string reason;     // not_runnable: why
  std::string output_name;
  double max_abs_error = 0;
  double max_rel_error = 0;
  std::vector<OutputCheck> checks;
  double duration_ms = 0;
  std::string ort_version;
  std::string onnx_version;

  nlohmann::json to_json() const;
};

// The ONNX version convfail's checker implements.
std::string onnx_library_version();

ModelVerdict reproduce_model(OrtRunner& runner, const std::string& model_path,
                             const ReproOptions& options);

}  // namespace convfail::repro
