// The outcome of one run: a model re-executed (`reproduce`, `bisect`, a model a repro script
// exported) or a repro script run (`reproduce --scripts`). The one shape of a verdict in repro:
// what reproduce_model and decide_script_verdict return, what verdict_store turns into a
// repro_runs row, what the command line prints.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/compare.h"
#include "exec/tensor.h"
#include "repro/verdicts.h"

namespace convfail::repro {

struct RunVerdict {
  // crash_reproduced | wrong_output_reproduced | not_reproduced | not_runnable (verdicts.h)
  std::string verdict;
  // Where it was decided: a model's parse | checker | shape_inference | inputs | session | run |
  // compare; a script's static | script | export | eager | timeout | harness (or its model's).
  std::string step;
  std::string signature;    // normalised error (crash) or "output X ...": for grouping
  std::string reason;       // not_runnable: why
  std::string output_name;  // wrong output: which
  // How the harness ran the model when not as it is (float16 fed through boundary Casts: see
  // boundary_casts.h); "" when it ran as it is.
  std::string harness_note;
  // The largest differences measured against the reference; nullopt when nothing was compared.
  std::optional<double> max_abs_error, max_rel_error;
  std::string ort_version, onnx_version;
  double duration_ms = 0;
  // For people (the signature is for grouping): the error as the failing part said it (checker,
  // runtime, the script's exception "Type: message"), and a script's traceback. Multi-line.
  std::string message, traceback;
  // A script run's details (the harness's report, each exported model's outcome); a model's
  // outcome as a script's evaluator saw it (model_run_json and the reference).
  nlohmann::json details = nlohmann::json::object();

  // Model runs only.
  std::string model_path;
  std::vector<exec::OutputCheck> checks;
  // With ReproOptions::save_outputs and a run: each level's outputs ("disabled", "all").
  std::map<std::string, std::vector<exec::Tensor>> outputs;
};

// A model run's verdict before it runs. Its largest differences start at 0, not unset: a model
// run has always stored and printed 0 when it compared nothing (a script run leaves them unset).
RunVerdict model_run_verdict(const std::string& model_path);

// A model run as JSON: what `reproduce` prints for a model and stores as its details_json.
nlohmann::json model_run_json(const RunVerdict& v);

// A number or null.
nlohmann::json number_or_null(const std::optional<double>& v);

}  // namespace convfail::repro
