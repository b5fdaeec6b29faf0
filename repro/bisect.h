// The search of `convfail bisect`: which ONNX Runtime releases change a model's verdict. Plain
// logic over a run function, so that a fake runtime can drive it in tests; bisect_command.h runs
// real releases and stores the runs.
//
// A release's verdict is bad (crash_reproduced, wrong_output_reproduced), good (not_reproduced)
// or unknown: not_runnable (the release predates the model, the model cannot be fed, ...),
// install_failed, or flaky. Unknown is never taken for good: it is skipped, and a change of
// verdict across unknown releases is reported with them as its gap.
//
// The newest release runs first, then the oldest known one (found by binary search, on the
// premise that releases gain support rather than lose it), then binary search between any two
// known releases whose verdicts differ (a midpoint that is unknown gives way to its nearest known
// neighbour in the interval). Two known releases with the same verdict are taken to have it
// throughout. Each release beside a change is run a second time: when its two verdicts differ it
// is flaky (reported with both) and the search goes on without it.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace convfail::repro {

// The verdict of a release that could not be installed (never stored as a run).
inline constexpr const char* kInstallFailed = "install_failed";

// One run of the model on one release.
struct ReleaseRun {
  std::string verdict;  // a reproduce verdict or kInstallFailed
  std::string step, signature, reason, message;
  bool stored = false;  // read back from an earlier bisect, not run now
  double duration_ms = 0;
};

enum class VerdictClass { kBad, kGood, kUnknown };
VerdictClass verdict_class(const std::string& verdict);

// Runs (or reads back) the `attempt`-th run (1 or 2) of the model on `version`.
using ReleaseRunFn = std::function<ReleaseRun(const std::string& version, int attempt)>;

struct TriedRelease {
  std::string version;
  std::vector<ReleaseRun> runs;  // in order; two when confirmed or flaky
  bool flaky = false;            // two runs with different verdicts
  // The verdict the search used: the run's, or "flaky" (unknown).
  std::string verdict() const;
  VerdictClass cls() const;
};

struct VerdictChange {
  std::string before, after;     // the known releases either side
  std::string from, to;          // their verdicts
  std::vector<std::string> gap;  // releases between them that were tried and are unknown
};

struct BisectResult {
  std::vector<std::string> releases;  // the range searched, release order
  std::vector<TriedRelease> tried;    // release order
  std::vector<VerdictChange> changes;
  std::optional<std::string> first_bad;     // the oldest bad release tried
  std::optional<std::string> regressed_in;  // first bad release after the last good -> bad change
  std::optional<std::string> fixed_in;      // first good release after the last bad -> good change
  std::optional<std::string> newest_known;  // the newest release with a known verdict
  bool still_failing = false;               // newest_known is bad
  int new_runs = 0, stored_runs = 0;
  std::vector<std::string> order;  // versions in the order they were first tried

  // A missing kernel's bisect said as such (kernel_release_text of its bad runs' signature),
  // else nullopt. to_json has it as "kernel".
  std::optional<std::string> kernel_text() const;

  nlohmann::json to_json() const;
};

// A bisect of a missing kernel (exec::missing_kernel_signature: "onnxruntime: no kernel for
// Relu(14) on int16") said as such: "kernel Relu(14) for int16 added in 1.22.0",
// "kernel Relu(14) for int16 missing in every release tried up to 1.31.1", "... removed in 1.20.0";
// nullopt when `signature` names no missing kernel or the verdicts say nothing of it.
std::optional<std::string> kernel_release_text(const std::string& signature,
                                               const std::optional<std::string>& fixed_in,
                                               const std::optional<std::string>& regressed_in,
                                               const std::optional<std::string>& newest_known,
                                               bool still_failing);

// Searches `releases` (release order, at least one). Never throws for a run's outcome.
BisectResult bisect_releases(const std::vector<std::string>& releases, const ReleaseRunFn& run);

}  // namespace convfail::repro
