#include "repro/ort_runner.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>

#include "core/resources.h"

namespace convfail::repro {

namespace fs = std::filesystem;
using nlohmann::json;

std::string default_runner_dir() {
  return convfail::default_runner_dir();
}

namespace {

// The runner's only writable place under the sandbox: one per convfail process, removed at exit.
// Each run() stages its model and tensors in a subdirectory (the sandbox shows the runner
// nothing else of the host but runner_dir).
const fs::path& runner_scratch() {
  static struct Dir {
    fs::path path;
    Dir() {
      std::random_device rd;
      path = fs::temp_directory_path() /
             ("convfail-runner-" + std::to_string(getpid()) + "-" + std::to_string(rd()));
      fs::create_directories(path);
    }
    ~Dir() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  } dir;
  return dir.path;
}

SandboxSpec runner_spec(RunnerOptions& o) {
  if (o.runner_dir.empty()) o.runner_dir = default_runner_dir();
  SandboxSpec s;
  s.argv = {o.node, fs::absolute(fs::path(o.runner_dir) / "runner.js").string()};
  s.cwd = o.runner_dir;
  const char* path = std::getenv("PATH");
  s.env = {{"PATH", path ? path : "/usr/local/bin:/usr/bin:/bin"},
           {"HOME", "/tmp"},
           {"LANG", "C.UTF-8"}};
  s.limits = o.limits;
  s.read_only_paths = {fs::absolute(o.runner_dir).string()};
  s.limits.writable_dir = runner_scratch().string();
  // The warm runner lives for many models: RLIMIT_CPU covers its whole life, so it is generous;
  // the per-model bound is the wall-clock timeout.
  if (o.warm && s.limits.cpu_seconds)
    s.limits.cpu_seconds = std::max<std::uint64_t>(s.limits.cpu_seconds, 3600);
  return s;
}

// The last "convfail-step LEVEL STEP" marker the runner wrote before it died.
void last_step(const std::string& stderr_text, std::string* level, std::string* step) {
  auto pos = stderr_text.rfind("convfail-step ");
  if (pos == std::string::npos) return;
  auto end = stderr_text.find('\n', pos);
  std::string line =
      stderr_text.substr(pos + 14, end == std::string::npos ? std::string::npos : end - pos - 14);
  auto sp = line.find(' ');
  if (sp == std::string::npos) return;
  *level = line.substr(0, sp);
  *step = line.substr(sp + 1);
}

}  // namespace

OrtRunner::OrtRunner(RunnerOptions options)
    : options_(std::move(options)), child_(runner_spec(options_)) {}

PersistentChild::Reply OrtRunner::raw_request(const std::string& line, double timeout_seconds) {
  auto reply = child_.request(line, timeout_seconds);
  if (!options_.warm) child_.stop();
  return reply;
}

std::optional<std::string> OrtRunner::version(std::string* why) {
  if (version_) return version_;
  if (!fs::exists(fs::path(options_.runner_dir) / "node_modules" / "onnxruntime-node")) {
    if (why)
      *why = "onnxruntime-node is not installed in " + options_.runner_dir +
             " (run scripts/install-deps.sh)";
    return std::nullopt;
  }
  auto reply = raw_request(R"({"op":"hello"})", 30);
  if (!reply.line) {
    if (why)
      *why = "ONNX Runtime runner did not start: " + reply.failure.describe() + " " +
             reply.failure.stderr_text.substr(0, 300);
    return std::nullopt;
  }
  try {
    json j = json::parse(*reply.line);
    if (j.value("ok", false)) return version_ = j.value("ort_version", std::string("unknown"));
    if (why) *why = j.value("error", std::string("runner refused hello"));
  } catch (const std::exception& e) {
    if (why) *why = std::string("runner spoke garbage: ") + e.what();
  }
  return std::nullopt;
}

RunnerReply OrtRunner::run(const std::string& model, const std::vector<Tensor>& inputs,
                           const std::string& work_dir, double timeout_seconds) {
  (void)work_dir;  // the model and the tensors are staged where the sandboxed runner can see them
  RunnerReply out;
  static std::atomic<unsigned> seq{0};
  const fs::path stage = runner_scratch() / std::to_string(seq++);
  struct Cleanup {
    fs::path path;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  } cleanup{stage};
  fs::create_directories(stage);
  // The model file only: external data beside it is not staged (models using it fail to load).
  fs::copy_file(model, stage / fs::path(model).filename(), fs::copy_options::overwrite_existing);
  if (geteuid() == 0) lchown(stage.c_str(), 65534, 65534);  // the sandbox's uid writes outputs
  json req = {{"op", "run"},
              {"model", (stage / fs::path(model).filename()).string()},
              {"out_dir", stage.string()},
              {"levels", {"disabled", "all"}},
              {"threads", options_.threads}};
  json specs = json::array();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    std::string file = (stage / ("input_" + std::to_string(i) + ".bin")).string();
    write_tensor_file(t, file);
    specs.push_back(
        {{"name", t.name}, {"type", ort_type_name(t.elem_type)}, {"dims", t.dims}, {"file", file}});
  }
  req["inputs"] = specs;
  auto reply = child_.request(req.dump(), timeout_seconds);
  if (!options_.warm) child_.stop();
  if (!reply.line) {
    out.step = "process";
    out.process = reply.failure;
    last_step(reply.failure.stderr_text, &out.level, &out.step);
    out.error = reply.failure.describe();
    return out;
  }
  json j;
  try {
    j = json::parse(*reply.line);
  } catch (const std::exception& e) {
    out.step = "protocol";
    out.error = std::string("runner reply is not JSON: ") + e.what();
    return out;
  }
  if (!j.value("ok", false)) {
    out.step = j.value("step", std::string("protocol"));
    out.level = j.value("level", std::string());
    out.error = j.value("error", std::string("runner failed"));
    return out;
  }
  try {
    for (auto& [level, result] : j.at("levels").items()) {
      out.run_ms[level] = result.value("ms", 0.0);
      auto& list = out.outputs[level];
      for (const auto& o : result.at("outputs")) {
        RunnerOutput ro;
        ro.name = o.at("name").get<std::string>();
        std::string type = o.at("type").get<std::string>();
        ro.present = type != "none";
        if (ro.present) {
          ro.tensor = read_tensor_file(o.at("file").get<std::string>(), type,
                                       o.at("dims").get<std::vector<std::int64_t>>());
          ro.tensor.name = ro.name;
        }
        list.push_back(std::move(ro));
      }
    }
  } catch (const std::exception& e) {
    out.outputs.clear();
    out.step = "io";
    out.error = std::string("bad runner output: ") + e.what();
    return out;
  }
  out.ok = true;
  return out;
}

}  // namespace convfail::repro
