// `convfail reproduce`: the four modes (issue, --all, --model, --suite) and storage. Returns what
// ran; the command line prints it (cli/repro_output.h).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/db.h"
#include "repro/reproduce.h"
#include "repro/reproduce_summary.h"
#include "repro/scripts/script_command.h"
#include "repro/suite.h"

namespace convfail::repro {

struct ReproduceRequest {
  std::string issue;  // OWNER/REPO#N or an issue URL (core/issue_ref.h)
  // Every issue: scanned for artifacts, then its fetched models and its PyTorch script run
  // (reproduce_all.h); models_only (--models) or scripts_only (--scripts) keeps one kind.
  bool all = false;
  bool models_only = false;
  bool scripts_only = false;
  ScriptRunOptions script_run;  // the scripts' interpreter, timeout and memory (--all)
  std::string model;
  std::string inputs_dir;
  std::string suite;
  std::string ort_version;  // --ort: an installed release (runtimes.h); empty = the pinned one
  std::string filter;
  std::vector<std::string> dims;  // NAME=V
  ReproOptions options;
  std::uint64_t memory_mb = 4096;
  int limit = 0;
};

// One model `reproduce` ran (or could not run: a not_runnable verdict with the reason).
struct ReproducedModel {
  std::string name;       // the model path (--model), the model's file name ("-": none), the case
  std::string issue_ref;  // issue and --all: OWNER/REPO#N; else empty
  std::string suite_outcome;  // --suite: pass | fail | not_runnable (suite_outcome); else empty
  RunVerdict verdict;
};

struct ReproduceResult {
  bool suite = false;                       // --suite: suite_totals and the runner's starts are set
  std::vector<ReproducedModel> models;      // in the order run
  std::vector<ScriptedProgram> scripts;     // --all: the PyTorch scripts, run after the models
  std::map<std::string, int> verdicts;      // verdict -> models and scripts (issue, --all, --model)
  std::optional<ReproduceSummary> summary;  // --all: what it scanned, ran and left out, and why
  SuiteTotals suite_totals;
  // --suite: "OUTCOME [STEP] REASON-OR-SIGNATURE" -> failed cases.
  std::map<std::string, int> fail_signatures;
  int runner_starts = 0, checker_starts = 0;
};

// Called as `reproduce` goes: before each model or --all's script (its number from 1, the number
// of suite cases or 0, and the issue or case), and after it with what it gave (a long run's
// results are printed as they come).
struct ReproduceProgress {
  std::function<void(int n, std::size_t cases, const std::string& name)> starting;
  std::function<void(const ReproducedModel&)> done;
  std::function<void(const ScriptedProgram&)> script_done;
};

// The version of the pinned onnxruntime-node (the runner's own node_modules), "" when missing.
std::string pinned_runtime_version();

// The runner options for `ort_version` (empty: the pinned default): the release's folder in the
// runtime cache, else the pinned default when it is that version. Throws UserError when that
// release is not installed.
exec::RunnerOptions runner_options_for(const std::string& ort_version);

// Runs the request; `db` is needed for issue/--all/--model (stored) and may be null for --suite.
// --all scans the issues for artifacts first and returns its summary. Throws UserError /
// UsageError on bad input.
ReproduceResult run_reproduce(ReproduceRequest request, Db* db,
                              const ReproduceProgress& progress = {});

// "NAME=V" list -> map. Throws UsageError.
std::map<std::string, std::int64_t> parse_dims(const std::vector<std::string>& dims);

// A model of an issue to re-run: a fetched model artifact or an .onnx file of an unpacked archive
// (with a sibling test_data_set_0/ as inputs when present), or why there is none.
struct ModelTarget {
  std::string model;  // empty: not runnable with `reason`
  std::string inputs_dir;
  std::string reason;
  std::optional<std::int64_t> artifact_id;
};
std::vector<ModelTarget> issue_model_targets(Db& db, std::int64_t issue_id);

// Issues to run: (issue id, "OWNER/REPO#N").
using IssueList = std::vector<std::pair<std::int64_t, std::string>>;

// Runs each issue's models (one not_runnable model when it has none), stores each and adds it to
// `result`; stops when `result` holds req.limit models and scripts (when > 0). Returns how many
// of the issues it did not reach.
int reproduce_issue_models(Db& db, const IssueList& issues, exec::OrtRunner& runner,
                           const ReproduceRequest& req, const ReproduceProgress& progress,
                           ReproduceResult& result);

}  // namespace convfail::repro
