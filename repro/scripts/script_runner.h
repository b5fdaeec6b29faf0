// Runs a repro script through the PyTorch harness (torch_harness/harness.py) inside the sandbox
// (repro/sandbox.h: bubblewrap, seccomp, uid 65534): fresh scratch directory (the only writable
// place, deleted when the ScriptRun goes away), Python and torch read-only from /usr, no network,
// wall-clock timeout, memory and process caps. Also the module lookup behind the "missing module"
// check. What the run left is read as untrusted: only regular files inside the scratch directory
// (no symbolic link), strings cut and scrubbed (stored_text).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/sandbox.h"
#include "exec/scratch_dir.h"

namespace convfail::repro {

struct ScriptRunOptions {
  std::string python = "/usr/bin/python3";  // the interpreter that has torch (Debian's)
  std::string harness;                      // empty: $CONVFAIL_HARNESS, else the build's copy
  double timeout_seconds = 180;
  std::uint64_t memory_bytes = 8ull << 30;  // torch reserves a lot of address space
  std::uint64_t file_size_bytes = 512ull << 20;
  bool guard = true;  // the harness's audit hook (writes outside, sockets, processes)
  // Modules that import as stubs when missing: scripts compare with ONNX Runtime themselves after
  // exporting, and convfail does that part, so their absence does not make a script unrunnable.
  std::vector<std::string> stub_modules = {"onnxruntime"};
};

struct HarnessException {
  std::string type, message, frame, module, where;  // frame: export | eager | before_export |
                                                    // after_export | syntax | harness
  int line = 0;                                     // for syntax errors
  // For people (stored_text with newlines kept): "Type: message" as Python prints it, and the
  // traceback's lines without the harness's frames and without that last line ("" when the
  // harness gave no frame).
  std::string text, traceback;
};

struct HarnessExport {
  int index = 0;
  std::string model_path;  // absolute; empty when the export raised or wrote nowhere usable
  std::vector<std::string> inputs;         // TensorProto files, graph input order
  std::vector<std::string> eager_outputs;  // TensorProto files, graph output order
  bool inputs_match_graph = false;
  bool outputs_match_graph = false;
  std::optional<HarnessException> error;        // the export raised
  std::optional<HarnessException> eager_error;  // the eager run raised
  int opset = 0;
  std::string note;
  // Eager outputs usable as reference: same inputs fed, one tensor per graph output.
  bool comparable() const {
    return !model_path.empty() && inputs_match_graph && outputs_match_graph && !eager_error &&
           !eager_outputs.empty();
  }
};

struct ScriptRun {
  exec::SandboxResult sandbox;
  std::string phase;  // where the harness was when it stopped: script | export | eager | done
  bool have_result = false;
  nlohmann::json result;  // result.json as written by the harness
  std::optional<HarnessException> exception;
  std::vector<HarnessExport> exports;
  int export_calls = 0;
  std::vector<std::string> blocked;
  std::vector<std::string> shims;
  std::string torch_version, onnx_version;
  std::string isolation;             // exec::SandboxResult::isolation: bwrap+seccomp | none (...)
  bool network_isolated = false;     // no network (the sandbox applied)
  bool filesystem_isolated = false;  // nothing of the host writable but the scratch directory
  std::shared_ptr<exec::ScratchDir> scratch;  // holds the exported files until the run is dropped
};

// Writes `code` to a fresh scratch directory and runs the harness on it under the sandbox.
// Never throws for anything the script does; throws UserError when the harness file is missing.
ScriptRun run_script(const std::string& code, const ScriptRunOptions& options);

// Text written by untrusted code, made fit to store and print: cut to `max_bytes` (on a UTF-8
// boundary), anything shaped like a GitHub token (ghp_..., github_pat_...) replaced by
// "<token>", control characters and invalid UTF-8 escaped (terminal_safe; newlines and tabs
// kept when `keep_newlines`, for multi-line texts such as a traceback).
std::string stored_text(const std::string& text, std::size_t max_bytes, bool keep_newlines = false);

// Parses a harness result.json (exposed for tests). Paths are resolved against outdir; a path
// that leaves it, is absolute, or crosses a symbolic link is dropped.
void parse_harness_result(const nlohmann::json& result, const std::string& outdir, ScriptRun* run);

// The names among `modules` that `python` cannot find (importlib.util.find_spec is None).
// Results are cached per interpreter. Throws UserError when the interpreter cannot be run.
std::vector<std::string> missing_modules(const std::vector<std::string>& modules,
                                         const std::string& python);

// $CONVFAIL_HARNESS, else share/convfail/torch_harness/harness.py beside the executable.
std::string default_harness_path();

}  // namespace convfail::repro
