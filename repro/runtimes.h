// ONNX Runtime releases on demand (`convfail runtimes`, `reproduce --ort`, `bisect`): each
// onnxruntime-node version installed once into its own folder of a cache,
// $XDG_CACHE_HOME/convfail/ort/VERSION (else ~/.cache/convfail/ort/VERSION), by
// `npm install --ignore-scripts` with a package.json and a package-lock.json of its own. npm checks
// every tarball against its sha512 integrity; convfail then checks that the lock records an
// integrity for every package, that the installed onnxruntime-node is VERSION and that it ships a
// native library for this platform (releases that download theirs in an install script, which is
// not run, fail to install). The sandboxed runner loads a version's package from its folder
// (exec::RunnerOptions::ort_dir). A failed install leaves VERSION.failed (its one-line reason) so a
// bisect does not retry it; `runtimes install` retries, `prune` removes it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace convfail::repro {

// $CONVFAIL_ORT_CACHE, else $XDG_CACHE_HOME/convfail/ort, else $HOME/.cache/convfail/ort.
std::string default_runtime_cache();

// Whether `version` looks like an npm release version (1.21.0, 1.22.0-rev): digits, dots and a
// tag of letters, digits, dots and dashes; no path characters.
bool valid_runtime_version(const std::string& version);

// Release order: numeric parts compared as numbers, a pre-release before its release.
bool version_less(const std::string& a, const std::string& b);

struct NpmOptions {
  std::string npm = "npm";
  double timeout_seconds = 600;  // one install
  double view_timeout_seconds = 60;
};

struct InstallResult {
  bool ok = false;
  bool already = false;  // was installed before
  std::string dir;       // the version's folder (holds node_modules/onnxruntime-node)
  std::string error;     // one line, raw (escape before printing)
  double seconds = 0;
};

struct InstalledRuntime {
  std::string version, dir;
  std::string integrity;  // of onnxruntime-node, from the version's lock
  bool failed = false;    // a VERSION.failed marker: reason in `error`
  std::string error;
};

class RuntimeCache {
 public:
  explicit RuntimeCache(std::string dir = default_runtime_cache(), NpmOptions npm = {});

  const std::string& dir() const { return dir_; }

  // The folder of an installed version, or nullopt.
  std::optional<std::string> installed_dir(const std::string& version) const;
  // The reason of an earlier failed install, or nullopt.
  std::optional<std::string> failed_reason(const std::string& version) const;

  // Installs `version` unless present. `retry_failed`: ignore an earlier failure marker (else it
  // is the answer). Never throws for npm or network failures: they are the result's error.
  // Throws UsageError for an invalid version.
  InstallResult install(const std::string& version, bool retry_failed = true);

  // Installed versions and failure markers, by release order.
  std::vector<InstalledRuntime> list() const;

  // The versions npm serves (`npm view onnxruntime-node versions --json`), release order,
  // development builds (a "-dev" tag) left out. Throws UserError (one line) when npm fails.
  std::vector<std::string> available() const;

  // Removes failure markers, half-finished installs and every installed version not in `keep`;
  // returns what was removed (version names, or the folder names of partial installs).
  std::vector<std::string> prune(const std::vector<std::string>& keep);

 private:
  std::string dir_;
  NpmOptions npm_;
};

// The one line of an npm failure: its "npm error code X" and first message lines joined
// ("E404: 404 Not Found - GET https://... - Not found"); `fallback` when stderr says nothing.
std::string npm_error_line(const std::string& stderr_text, const std::string& fallback);

}  // namespace convfail::repro
