// The campaign's plain types, at the bottom of campaign/: what the oracle is asked (ModelTask, with
// its OracleOptions) and what it answers (ModelResult), and the campaign's configuration
// (CampaignConfig, stored as campaigns.config_json). The oracle, the runner, the plan and
// minimisation use them; the store does not (it stores StoredModel rows, campaign_store.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/outcomes.h"

namespace convfail::campaign {

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

// A model's message is cut to this many bytes (the oracle's, and `test merge`'s for a shard's row).
inline constexpr std::size_t kMaxMessage = 600;

struct ModelResult {
  std::string outcome;
  std::string mismatch_mode;  // optimised | unoptimised | both
  std::string signature;      // repro/signature; the grouping key
  std::string message;        // the error as said (cut, escaped)
  std::string stage;          // build | eager | export | checker | session | run | compare
  // How the harness ran the model when not as exported (repro's RunVerdict::harness_note:
  // float16 fed through boundary Casts on a release whose binding holds none); "" otherwise.
  std::string harness_note;
  double max_abs_diff = 0, max_rel_diff = 0;
  // Compared models (success, mismatch): the smallest t at which every comparison passes with
  // atol = rtol = t (exec::CompareResult::min_tolerance, the largest over outputs, input sets and
  // the optimised-vs-unoptimised check; infinity when none does) and the difference_kind of the
  // comparison that needs it. < 0: not compared, or the runner did not say.
  double min_tolerance = -1;
  std::string difference_kind;
  // The tensor types the model uses (a synthetic model's spec: inputs and nodes), as the worker
  // said them (validated: names of campaign::all_dtypes()).
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

// NNSmith's nine generation types, in the order synth.py's ALL_DTYPES makes graph inputs (float32
// first: every synthetic model has it). `test run --dtypes all` names them.
// (Header-only: the worker reply's check and its fuzz target use it without the plan.)
inline const std::vector<std::string>& all_dtypes() {
  static const std::vector<std::string> k = {"float32", "float16", "float64", "uint8", "int8",
                                             "int16",   "int32",   "int64",   "bool"};
  return k;
}
// The version of synth.py's seed -> model mapping (its GENERATOR): part of the configuration of a
// campaign with synthetic models, so that a campaign stored by another generator is not resumed
// with different models. Bump both together.
inline constexpr int kSyntheticGenerator = 3;

// The study's synthetic campaign (`test run --study`): 1,724 models of 15-100 operators over all
// nine types (the study: 2 conversion failures, 741 ORT failures, 100 mismatches, 881 successes).
inline constexpr int kStudyModels = 1724;

struct CampaignConfig {
  std::vector<std::string>
      sources;  // synthetic | torchvision|torchaudio|text|real[:NAME,...] | script:FILE.py
  std::int64_t seed = 1;
  int nodes_min = 15, nodes_max = 100, nodes_step = 5;
  int models = 100;  // synthetic models
  OracleOptions oracle;
  bool perturb = false;        // test hook: every exported model made wrong on purpose
  bool external_data = false;  // test hook: every exported model's weights in external data files
  // Synthetic models drawn only from the operator/type pairs the support matrix of the release
  // under test says work (campaign/run/support_matrix); false: `test run --unfiltered`, today's
  // draw.
  bool filtered = true;
  std::vector<std::string> scripts_abs;  // absolute paths of script:FILE sources (same order)

  // What identifies the campaign (sources, seed, nodes, models, opset, tolerances, inputs,
  // dtypes, max_elements, and with synthetic models the generator's version and whether the draw
  // is filtered): the key a rerun finds it by. run_campaign adds "ort", the ONNX Runtime
  // release the campaign runs on, so a campaign on another release is another campaign, and for
  // a filtered draw "support_matrix" (support_identity: the versions and the working pairs).
  nlohmann::json to_json() const;
  // The configuration a stored campaign ran with (campaigns.config_json, as to_json wrote it, with
  // "ort" and "shard" as run_campaign adds them): defaults where a key is absent or of another
  // type, the ONNX Runtime release in oracle.ort_version. Never throws: a stored text that is not
  // an object gives the defaults. scripts_abs (host paths) is not stored and stays empty.
  static CampaignConfig from_json(const nlohmann::json& stored);
};

}  // namespace convfail::campaign
