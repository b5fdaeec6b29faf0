// Where convfail finds the files it ships beside its binary: the data folder (taxonomy.json,
// rules/, opset_releases.json, sample/), the ONNX Runtime runner and the PyTorch harness.
// No path of the source tree is compiled in, so an installed or moved binary finds its own.
#pragma once

#include <string>

namespace convfail {

// The folder holding the running executable (from /proc/self/exe); empty when unreadable.
std::string executable_dir();

// share/convfail/<name> for an executable in exe_dir: <exe_dir>/../share/convfail/<name>
// (installed: PREFIX/bin/convfail), else <exe_dir>/share/convfail/<name> (the build tree, where
// CMake links share/convfail/* to the source folders). When neither exists, the installed
// location, so that an error names where the file was expected.
std::string bundled_path(const std::string& exe_dir, const std::string& name);

// $<env_var> when set and non-empty, else bundled_path(executable_dir(), name).
std::string resource_path(const char* env_var, const std::string& name);

// $CONVFAIL_DATA_DIR, else share/convfail/data (--data-dir overrides both, in the CLI).
std::string default_data_dir();
// $CONVFAIL_RUNNER_DIR, else share/convfail/runner.
std::string default_runner_dir();
// $CONVFAIL_HARNESS, else share/convfail/torch_harness/harness.py.
std::string default_torch_harness();

}  // namespace convfail
