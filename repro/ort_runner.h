// The C++ side of the ONNX Runtime runner (runner/runner.js under Node.js): a sandboxed,
// warm child process speaking line-based JSON, restarted after it dies. Tensors go through
// files in a work directory.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "repro/sandbox.h"
#include "repro/tensor.h"

namespace convfail::repro {

struct RunnerOptions {
  std::string runner_dir;  // holds runner.js and node_modules/; default_runner_dir() when empty
  std::string node = "node";
  SandboxLimits limits;  // wall_seconds is the per-model timeout
  bool warm = true;      // false: a fresh runner process per model (the bench baseline)
  int threads = 1;       // ORT intra-op threads
};

// $CONVFAIL_RUNNER_DIR, else share/convfail/runner beside the executable (core/resources.h).
std::string default_runner_dir();

struct RunnerOutput {
  std::string name;
  bool present = false;  // an optional output may be absent
  Tensor tensor;
};

struct RunnerReply {
  bool ok = false;
  // Where it failed: session | run (ONNX Runtime errors), io | protocol | load (harness),
  // process (the runner died or timed out: see process).
  std::string step;
  std::string level;  // optimization level that failed: disabled | all
  std::string error;
  std::optional<SandboxResult> process;
  std::map<std::string, std::vector<RunnerOutput>> outputs;  // per level
  std::map<std::string, double> run_ms;                      // per level
};

class OrtRunner {
 public:
  explicit OrtRunner(RunnerOptions options = {});

  // The onnxruntime-node version, or nullopt with *why when node/the package is missing.
  std::optional<std::string> version(std::string* why = nullptr);

  // Runs `model` on `inputs` with graph optimizations disabled and all enabled. Input and
  // output files are written under `work_dir` (which must exist).
  RunnerReply run(const std::string& model, const std::vector<Tensor>& inputs,
                  const std::string& work_dir, double timeout_seconds = 0);

  // Sends a raw request line (protocol tests).
  PersistentChild::Reply raw_request(const std::string& line, double timeout_seconds = 0);
  int process_starts() const { return child_.starts(); }

 private:
  RunnerOptions options_;
  PersistentChild child_;
  std::optional<std::string> version_;
};

}  // namespace convfail::repro
