// `convfail bisect`: a model (a file, an issue's fetched models, a campaign group's minimised
// model) run on ONNX Runtime releases (runtimes.h) to find where its verdict changes (bisect.h).
// Runs are stored per model content, run options and release in runtime_runs and reused by the
// next bisect; each bisect's answer goes to bisects (schema/0015_runtime_bisect.sql), which the
// repro report reads. Returns each model's answer; the command line prints it
// (cli/bisect_output.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"
#include "repro/bisect.h"
#include "repro/reproduce.h"
#include "repro/runtimes.h"
#include "repro/scripts/script_runner.h"

namespace convfail::repro {

struct BisectRequest {
  std::string model;        // a model file
  std::string issue;        // OWNER/REPO#N: its fetched models
  std::string group_model;  // a campaign group's minimised model (resolved by the caller)
  // Its input sets, each a folder of inputs and torch's outputs (input_N.pb, output_N.pb): a
  // release's verdict is the first failing set's (crash, not_runnable, wrong output), else
  // not_reproduced. Empty: generated inputs.
  std::vector<std::string> group_input_sets;
  std::optional<std::int64_t> group_id;
  std::string from, to;               // release range (inclusive); empty = open
  std::vector<std::string> releases;  // explicit releases; empty = what npm serves
  bool installed_only = false;        // the installed releases instead of npm's list
  bool linear = false;                // run every release (the baseline of the search)
  std::vector<std::string> dims;      // NAME=V
  ReproOptions options;
  std::uint64_t memory_mb = 4096;
  // ISSUE without a fetched model: its repro script (the program `reproduce --scripts` runs) is
  // run once in the harness and the models it exports are bisected, with the inputs it fed and
  // torch's eager outputs. They are kept in export_store/<sha256 of the model>/ (model.onnx,
  // input_N.pb, output_N.pb) so a second bisect finds its stored runs. Empty: no script fallback.
  std::string export_store;
  ScriptRunOptions script;
};

// What `bisect` reports as it goes, for the command line to print: an issue's model it cannot
// run (kSkipped, with the reason), its repro script starting (kScriptRunning) or exporting no
// model (kScriptNoModel, with the script's verdict and reason), and per release an install that
// failed (kNotInstalled), a release installed now (kInstalled, with the seconds it took) or a
// run made now (kRan, with its verdict and attempt). `subject` is the issue (OWNER/REPO#N) or
// the release.
struct BisectEvent {
  enum class Kind { kSkipped, kScriptRunning, kScriptNoModel, kNotInstalled, kInstalled, kRan };
  Kind kind = Kind::kRan;
  std::string subject;
  std::string verdict, reason;
  int attempt = 1;
  double seconds = 0;
};

// One model bisected: which, its content hash, the search's answer and its wall time.
struct BisectedModel {
  std::string label;  // the model path, "group N", or the issue and model file name
  std::string model;
  std::string sha256;
  std::optional<std::int64_t> issue_id;
  BisectResult result;
  double seconds = 0;
};

struct BisectProgress {
  std::function<void(const BisectEvent&)> event;
  std::function<void(const BisectedModel&)> done;  // after each model, before the next starts
};

// Runs the request against `cache`, stores each run and each answer, and returns every model's
// answer in order. Throws UserError / UsageError on bad input.
std::vector<BisectedModel> run_bisect(BisectRequest request, Db& db, RuntimeCache& cache,
                                      const BisectProgress& progress = {});

// The releases to search: `request.releases`, or the cache's / npm's, within [from, to].
std::vector<std::string> bisect_release_list(const BisectRequest& request, RuntimeCache& cache);

}  // namespace convfail::repro
