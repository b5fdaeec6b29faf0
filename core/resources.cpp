#include "core/resources.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace convfail {

namespace fs = std::filesystem;

std::string executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return {};
  return exe.parent_path().string();
}

std::string bundled_path(const std::string& exe_dir, const std::string& name) {
  // Relative to the current directory when /proc is unavailable: still a useful error message.
  fs::path dir = exe_dir.empty() ? fs::path(".") : fs::path(exe_dir);
  fs::path installed = (dir / ".." / "share" / "convfail" / name).lexically_normal();
  fs::path build_tree = (dir / "share" / "convfail" / name).lexically_normal();
  std::error_code ec;
  if (fs::exists(installed, ec)) return installed.string();
  if (fs::exists(build_tree, ec)) return build_tree.string();
  return installed.string();
}

std::string resource_path(const char* env_var, const std::string& name) {
  if (const char* v = std::getenv(env_var); v && *v) return v;
  return bundled_path(executable_dir(), name);
}

std::string default_data_dir() {
  return resource_path("CONVFAIL_DATA_DIR", "data");
}

std::string default_runner_dir() {
  return resource_path("CONVFAIL_RUNNER_DIR", "runner");
}

std::string default_torch_harness() {
  return resource_path("CONVFAIL_HARNESS", "torch_harness/harness.py");
}

}  // namespace convfail
