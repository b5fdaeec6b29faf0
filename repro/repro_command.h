// `convfail reproduce`: the four modes (issue, --all, --model, --suite), output and storage.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/db.h"
#include "repro/reproduce.h"
#include "repro/result_output.h"

namespace convfail::repro {

struct ReproduceRequest {
  std::string issue;  // OWNER/REPO#N or an issue URL (core/issue_ref.h)
  bool all = false;
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
// Throws UserError / UsageError on bad input.
void run_reproduce(ReproduceRequest request, Db* db, std::ostream& out);

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

}  // namespace convfail::repro
