// The oracle of one model: the warm torch worker (harness/campaign_worker.py, sandboxed) builds it,
// runs it eagerly on K input sets and exports it; repro's reproduce_model then checks it (libonnx
// checker, strict shape inference) and runs it in the warm ONNX Runtime runner with all graph
// optimisations and with none against the eager outputs. The outcome is one of the study's
// classes; a worker that dies or hangs is that model's outcome and is restarted for the next.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/campaign_types.h"

namespace convfail::exec {
struct CompareResult;
}  // namespace convfail::exec

namespace convfail::campaign {

// The kind of a failing comparison ("integer output, ", ...), put before its problem in the
// mismatch signature so that one group holds one kind of difference: an integer or bool output
// (an index flip of ArgMax on a near-tie, a comparison on the boundary), an infinity or NaN on one
// side only, a float difference of at most 1e-3 (what reordered float32 arithmetic gives on values
// of order one) or a larger one. "" for a match, a shape, type or missing output (the problem says
// what it is).
std::string mismatch_kind(const exec::CompareResult& c);

// The kind of any difference of a comparison, failing or not (the tolerance curve's rows):
// "integer output", "non-finite value", "small float difference", "large float difference",
// "shape, type or missing output"; "" when the outputs are equal.
std::string difference_kind(const exec::CompareResult& c);

class Oracle {
 public:
  explicit Oracle(OracleOptions options);
  ~Oracle();
  Oracle(const Oracle&) = delete;
  Oracle& operator=(const Oracle&) = delete;

  // {"torch","onnx","torchvision","torchaudio","onnxruntime"}; throws UserError when a worker
  // cannot start.
  nlohmann::json versions();
  // The architectures of these libraries (torchvision, torchaudio, text) that the worker lists:
  // [{"name","family","library"}], each library's sorted. UserError when a library is missing.
  nlohmann::json zoo_models(const std::vector<std::string>& libraries);
  // The worker's reply to "support_table" (synth.py's operators, the types measured and those
  // eager takes), as it came: the caller validates it (campaign/run/support_matrix).
  nlohmann::json support_table();
  // Sets the filtered draw's table (OracleOptions::support) for the next models.
  void set_support(const nlohmann::json& support);
  // Runs the model. Its files, taken out of the worker's folder the one safe way
  // (exec/child_files), stay in model_dir (a folder no child can write to) until the next run.
  ModelResult run(const ModelTask& task);
  int worker_starts() const;
  int runner_starts() const;

 private:
  struct Impl;  // the worker, its folders and the ONNX Runtime runner (exec/)
  std::unique_ptr<Impl> impl_;
};

// $CONVFAIL_CAMPAIGN_WORKER, else share/convfail/campaign_harness/campaign_worker.py.
std::string default_campaign_worker();

}  // namespace convfail::campaign
