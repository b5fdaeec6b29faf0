#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include <doctest/doctest.h>

#include "core/resources.h"
#include "test_helpers.h"

using namespace convfail;
namespace fs = std::filesystem;

namespace {

// Sets (or unsets, with nullopt) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

TEST_CASE("resources: share/convfail is looked up beside the executable, installed first") {
  test::TempDir t;
  fs::path bin = t.path() / "prefix" / "bin";
  fs::create_directories(bin);
  fs::path installed = t.path() / "prefix" / "share" / "convfail" / "data";
  fs::path build_tree = bin / "share" / "convfail" / "data";

  // Neither exists: the installed location, so that an error can name it.
  CHECK(bundled_path(bin.string(), "data") == installed.lexically_normal().string());

  fs::create_directories(build_tree);  // build tree: <exe_dir>/share/convfail/data
  CHECK(bundled_path(bin.string(), "data") == build_tree.string());

  fs::create_directories(installed);  // installed: <exe_dir>/../share/convfail/data
  CHECK(bundled_path(bin.string(), "data") == installed.string());
  CHECK(bundled_path(bin.string(), "runner") ==
        (t.path() / "prefix" / "share" / "convfail" / "runner").string());
}

TEST_CASE("resources: the environment variable overrides the lookup, unless empty") {
  ScopedEnv env("CONVFAIL_DATA_DIR", std::string("/somewhere/else"));
  CHECK(default_data_dir() == "/somewhere/else");
  ScopedEnv runner("CONVFAIL_RUNNER_DIR", std::string("/r"));
  CHECK(default_runner_dir() == "/r");
  ScopedEnv harness("CONVFAIL_HARNESS", std::string("/h/harness.py"));
  CHECK(default_torch_harness() == "/h/harness.py");
  ScopedEnv empty("CONVFAIL_DATA_DIR", std::string());
  CHECK(default_data_dir() == bundled_path(executable_dir(), "data"));
}

TEST_CASE("resources: the build tree links share/convfail to the source folders") {
  // unit_tests sits in build/tests: build/share/convfail is its ../share/convfail.
  REQUIRE(fs::exists(fs::path(executable_dir()) / "unit_tests"));
  ScopedEnv data("CONVFAIL_DATA_DIR", std::nullopt);
  ScopedEnv runner("CONVFAIL_RUNNER_DIR", std::nullopt);
  ScopedEnv harness("CONVFAIL_HARNESS", std::nullopt);
  CHECK(fs::equivalent(fs::path(default_data_dir()) / "taxonomy.json",
                       fs::path(test::data_dir()) / "taxonomy.json"));
  CHECK(fs::equivalent(fs::path(default_runner_dir()) / "runner.js",
                       fs::path(test::source_dir()) / "exec" / "runner" / "runner.js"));
  CHECK(fs::equivalent(bundled_path(executable_dir(), "python_helpers/child_tensors.py"),
                       fs::path(test::source_dir()) / "exec" / "python" / "child_tensors.py"));
  CHECK(fs::equivalent(default_torch_harness(),
                       fs::path(test::source_dir()) / "repro" / "torch_harness" / "harness.py"));
}
