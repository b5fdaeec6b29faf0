// `convfail reproduce`: the four modes (issue, --all, --model, --suite), output and storage.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/db.h"
#include "repro/reproduce.h"
#include "repro/reproduce_summary.h"
#include "repro/result_output.h"
#include "repro/scripts/script_command.h"

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
  OutputFormat format = OutputFormat::kText;
  bool progress = false;
};

// The version of the pinned onnxruntime-node (the runner's own node_modules), "" when missing.
std::string pinned_runtime_version();

// The runner options for `ort_version` (empty: the pinned default): the release's folder in the
// runtime cache, else the pinned default when it is that version. Throws UserError when that
// release is not installed.
exec::RunnerOptions runner_options_for(const std::string& ort_version);

// Runs the request; `db` is needed for issue/--all/--model (stored) and may be null for --suite.
// Prints the results (and the JSON documents); returns what was found, run and left out for the
// caller to print. Throws UserError / UsageError on bad input.
ReproduceSummary run_reproduce(ReproduceRequest request, Db* db, std::ostream& out);

// Re-runs each issue's models (one not_runnable result when it has none), stores and prints each
// result and counts it in `summary` (models, verdicts); stops at req.limit results (when > 0)
// counted in `*used` across calls, and counts the issues it did not reach in summary.limited.
void run_issue_models(Db& db, const IssueList& issues, exec::OrtRunner& runner,
                      const ReproduceRequest& req, ResultOutput& output, ReproduceSummary& summary,
                      int* used);

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

// Stores one verdict in repro_runs; returns its id.
std::int64_t store_verdict(Db& db, const ModelVerdict& v, std::optional<std::int64_t> issue_id,
                           std::optional<std::int64_t> artifact_id);

}  // namespace convfail::repro
