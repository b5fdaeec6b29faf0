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

#include "testing/outcomes.h"

namespace convfail::exec {
struct CompareResult;
}  // namespace convfail::exec

namespace convfail::testing {

struct OracleOptions {
  int opset = 16;
  double rtol = 1e-3;
  double atol = 1e-7;
  int inputs = 3;  // input sets per model
  std::int64_t max_elements = 1 << 16;
  std::vector<std::string> dtypes = {"float32"};
  // torchvision: the input side (test run --image-size); 0 = each family's default size.
  int image_size = 0;
  double timeout_seconds = 60;  // per model and step (worker request, ONNX Runtime run)
  std::uint64_t memory_mb = 8192;
  bool warm = true;  // false: a fresh worker and runner process per model (the bench baseline)
  // The ONNX Runtime release (repro/runtimes.h, `test run --ort`): empty = the pinned one.
  std::string ort_version;
  // A filtered campaign's synthetic draw: operator -> the types the support matrix says work
  // end to end ({"relu": ["float32", ...], ...}); null: today's unfiltered draw.
  nlohmann::json support;
};

// One model of a plan.
struct ModelTask {
  int seq = 0;
  std::string source;  // synthetic | torchvision | torchaudio | text | script
  std::string name;    // synthetic-n30-s17, torchvision:resnet18, text:bert_base, script:foo.py
  int nodes = 0;       // requested operators (synthetic)
  std::int64_t seed = 0;
  std::string arch, family;  // torchvision, torchaudio, text (family: classification, ..., audio)
  std::string script;        // script: absolute path on the host
  std::string spec_path;     // synthetic: a stored spec (minimisation) instead of the seed
  std::optional<std::vector<int>> keep;  // with spec_path: the nodes kept
  bool perturb = false;                  // test hook: a deliberately wrong ONNX model
  bool external_data = false;            // test hook: the weights saved as external data
  // A cell of the support matrix: one node of this operator on this type (synthetic).
  std::string single_op, single_dtype;
  int single_variant = 0;  // synth.single's variant: its first input shape and builder choices
  int opset = 0;           // > 0: this opset instead of the options'
  int inputs = 0;          // > 0: this many input sets instead of the options'
};

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

struct ModelResult {
  std::string outcome;
  std::string mismatch_mode;  // optimised | unoptimised | both
  std::string signature;      // repro/signature; the grouping key
  std::string message;        // the error as said (cut, escaped)
  std::string stage;          // build | eager | export | checker | session | run | compare
  double max_abs_diff = 0, max_rel_diff = 0;
  // Compared models (success, mismatch): the smallest t at which every comparison passes with
  // atol = rtol = t (exec::CompareResult::min_tolerance, the largest over outputs, input sets and
  // the optimised-vs-unoptimised check; infinity when none does) and the difference_kind of the
  // comparison that needs it. < 0: not compared, or the runner did not say.
  double min_tolerance = -1;
  std::string difference_kind;
  // The tensor types the model uses (a synthetic model's spec: inputs and nodes), as the worker
  // said them (validated: names of testing::all_dtypes()).
  std::vector<std::string> dtypes;
  std::string main_dtype;  // a synthetic model's main type ("" when the worker did not say)
  int nodes = 0;
  nlohmann::json ops = nlohmann::json::array();    // ONNX op types in node order
  nlohmann::json edges = nlohmann::json::array();  // [[from, to], ...]
  nlohmann::json durations = nlohmann::json::object();
  std::string model_dir;  // the worker's output (model.onnx, spec.json, program.py, set_k/),
                          // taken out of its folder into one no child can write to
  bool has_model = false;
  std::string take_problem;  // what of the worker's output was refused (a link, a FIFO, ...)
  nlohmann::json graph_json() const { return {{"ops", ops}, {"edges", edges}}; }
};

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
  // eager takes), as it came: the caller validates it (testing/support_matrix).
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

// $CONVFAIL_CAMPAIGN_WORKER, else share/convfail/testing_harness/campaign_worker.py.
std::string default_campaign_worker();

}  // namespace convfail::testing
