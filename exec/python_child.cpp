#include "exec/python_child.h"

#include <filesystem>

#include "core/resources.h"

namespace fs = std::filesystem;

namespace convfail::exec {

std::map<std::string, std::string> python_child_env(const std::string& home, const std::string& tmp,
                                                    const std::string& torch_home) {
  const std::string nowhere = "http://127.0.0.1:9";
  return {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
          {"HOME", home},
          {"TMPDIR", tmp},
          {"LANG", "C.UTF-8"},
          {"PYTHONDONTWRITEBYTECODE", "1"},
          {"PYTHONNOUSERSITE", "1"},
          {"PYTHONHASHSEED", "0"},
          {"OMP_NUM_THREADS", "1"},
          {"MKL_NUM_THREADS", "1"},
          {"TORCH_HOME", torch_home},
          {"http_proxy", nowhere},
          {"https_proxy", nowhere},
          {"HTTP_PROXY", nowhere},
          {"HTTPS_PROXY", nowhere},
          {"ALL_PROXY", nowhere},
          {"no_proxy", ""}};
}

std::string default_python_helpers() {
  return resource_path("CONVFAIL_PYTHON_HELPERS", "python_helpers");
}

SandboxSpec python_worker_spec(const std::string& program, const std::vector<std::string>& args,
                               const std::string& scratch,
                               const std::vector<std::string>& read_only) {
  SandboxSpec spec;
  std::error_code ec;
  std::string abs_program = fs::absolute(program, ec).string();
  spec.argv = {"/usr/bin/python3", abs_program};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  fs::create_directories(fs::path(scratch) / "tmp", ec);
  spec.env = python_child_env(scratch, scratch + "/tmp", scratch + "/torch");
  std::string helpers = fs::absolute(default_python_helpers(), ec).string();
  spec.env["PYTHONPATH"] = helpers;
  spec.cwd = scratch;
  spec.limits.writable_dir = scratch;
  spec.read_only_paths = {fs::path(abs_program).parent_path().string(), helpers};
  spec.read_only_paths.insert(spec.read_only_paths.end(), read_only.begin(), read_only.end());
  return spec;
}

}  // namespace convfail::exec
