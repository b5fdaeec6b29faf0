#include "exec/ort_runner.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "core/json_util.h"
#include "core/resources.h"

namespace convfail::exec {

namespace fs = std::filesystem;
using nlohmann::json;

std::string default_runner_dir() {
  return convfail::default_runner_dir();
}

bool path_within(const std::string& path, const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path), ec);
  if (ec) return false;
  fs::path d = fs::weakly_canonical(fs::absolute(dir), ec);
  if (ec) return false;
  fs::path rel = p.lexically_relative(d);
  if (rel.empty() || rel == ".") return false;
  return *rel.begin() != "..";
}

namespace {

// The folder to bind for the Node.js installation when it lies outside the system folders the
// sandbox always binds (/usr, /bin, /lib*): the folder above node's bin/.
std::string node_install_dir(const std::string& node, const std::string& path_env) {
  fs::path exe = node;
  if (exe.filename() == exe) {  // looked up in PATH
    std::string path = path_env;
    for (std::size_t start = 0; start <= path.size();) {
      std::size_t end = path.find(':', start);
      if (end == std::string::npos) end = path.size();
      fs::path candidate = fs::path(path.substr(start, end - start)) / node;
      if (end > start && ::access(candidate.c_str(), X_OK) == 0) {
        exe = candidate;
        break;
      }
      start = end + 1;
    }
  }
  std::error_code ec;
  fs::path real = fs::canonical(exe, ec);
  if (ec) return {};
  for (const char* system : {"/usr", "/bin", "/lib", "/lib64"})
    if (path_within(real.string(), system)) return {};
  return real.parent_path().parent_path().string();
}

SandboxSpec make_runner_spec(RunnerOptions& o) {
  if (o.runner_dir.empty()) o.runner_dir = default_runner_dir();
  // Paths with symlinks resolved: the sandbox shows the bound folders at their real paths (in the
  // build tree, share/convfail/runner is a link to exec/runner).
  std::error_code ec;
  std::string runner_dir = fs::weakly_canonical(fs::absolute(o.runner_dir), ec).string();
  SandboxSpec s;
  s.argv = {o.node, (fs::path(runner_dir) / "runner.js").string()};
  s.cwd = runner_dir;
  const char* path = std::getenv("PATH");
  s.env = {{"PATH", path ? path : "/usr/local/bin:/usr/bin:/bin"},
           {"HOME", "/tmp"},
           {"LANG", "C.UTF-8"}};
  s.max_output_bytes = 1 << 20;  // replies are summaries
  // runner.js with node_modules/, and Node.js when installed outside the system folders.
  s.read_only_paths.push_back(runner_dir);
  // The onnxruntime-node to load: runner_dir's own, or a release's folder (runtimes.h).
  std::string ort_dir = runner_dir;
  if (!o.ort_dir.empty()) {
    ort_dir = fs::weakly_canonical(fs::absolute(o.ort_dir), ec).string();
    s.env["CONVFAIL_ORT_DIR"] = ort_dir;
    if (!path_within(ort_dir, runner_dir)) s.read_only_paths.push_back(ort_dir);
  }
  // node_modules may be a link to a folder elsewhere: bind where it leads too.
  std::string modules = fs::weakly_canonical(fs::path(ort_dir) / "node_modules", ec).string();
  if (!ec && !path_within(modules, ort_dir)) s.read_only_paths.push_back(modules);
  std::string node_dir = node_install_dir(o.node, s.env["PATH"]);
  if (!node_dir.empty()) s.read_only_paths.push_back(node_dir);
  for (const auto& root : o.model_roots)
    s.read_only_paths.push_back(fs::weakly_canonical(fs::absolute(root), ec).string());
  s.limits = o.limits;
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

// The runner sends 1e308 for an infinite error (JSON has no infinity).
double error_value(const json& j, const char* key) {
  double v = j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0;
  return v >= 1e308 ? INFINITY : v;
}

std::string text_value(const json& j, const char* key, std::size_t max = 2000) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return {};
  return it->get<std::string>().substr(0, max);
}

}  // namespace

PersistentChild::Reply ModelChild::request(const std::string& model_dir, const std::string& line,
                                           double timeout_seconds) {
  std::error_code ec;
  std::string dir = model_dir.empty() ? std::string()
                                      : fs::weakly_canonical(fs::absolute(model_dir), ec).string();
  auto covered = [&] {
    if (dir.empty()) return true;
    for (const auto& root : spec_.read_only_paths)
      if (root == dir || path_within(dir, root)) return true;
    return false;
  };
  if (!covered()) {
    // Not in reach of the running child: replace it by one that sees this folder instead.
    auto& ro = spec_.read_only_paths;
    if (!model_dir_.empty()) ro.erase(std::remove(ro.begin(), ro.end(), model_dir_), ro.end());
    model_dir_ = dir;
    ro.push_back(dir);
    if (child_) {
      earlier_starts_ += child_->starts();
      child_.reset();
    }
  }
  if (!child_) child_ = std::make_unique<PersistentChild>(spec_);
  auto reply = child_->request(line, timeout_seconds);
  if (!warm_) child_->stop();
  return reply;
}

namespace {

std::string make_scratch() {
  std::random_device rd;
  fs::path dir = fs::temp_directory_path() /
                 ("convfail-runner-" + std::to_string(rd()) + std::to_string(rd()));
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
  return fs::canonical(dir).string();
}

SandboxSpec make_checker_spec(const RunnerOptions& o, const std::string& scratch) {
  SandboxSpec s;
  std::error_code ec;
  std::string self = fs::read_symlink("/proc/self/exe", ec).string();
  s.argv = {self, kCheckModelCommand};
  s.env = {{"PATH", "/usr/bin:/bin"}, {"LANG", "C.UTF-8"}, {"HOME", scratch}};
  s.cwd = scratch;
  s.max_output_bytes = 1 << 20;
  s.read_only_paths = {self};
  for (const auto& root : o.model_roots)
    s.read_only_paths.push_back(fs::weakly_canonical(fs::absolute(root), ec).string());
  s.limits.memory_bytes = 4ull << 30;
  s.limits.cpu_seconds = o.warm ? 3600 : 60;  // a warm child's RLIMIT_CPU covers its whole life
  s.limits.wall_seconds = 60;
  s.limits.writable_dir = scratch;
  return s;
}

SandboxSpec with_scratch(SandboxSpec s, const std::string& scratch) {
  s.limits.writable_dir = scratch;
  return s;
}

}  // namespace

OrtRunner::OrtRunner(RunnerOptions options)
    : options_(std::move(options)),
      scratch_(make_scratch()),
      runner_(with_scratch(make_runner_spec(options_), scratch_), options_.warm),
      checker_(make_checker_spec(options_, scratch_), options_.warm) {}

OrtRunner::~OrtRunner() {
  runner_.stop();  // the children go before their scratch folder
  checker_.stop();
  std::error_code ec;
  fs::remove_all(scratch_, ec);
}

CheckerReply OrtRunner::check(const std::string& model, double timeout_seconds,
                              const std::string& node) {
  std::error_code ec;
  fs::path path = fs::weakly_canonical(fs::absolute(model), ec);
  json request = {{"model", path.string()}};
  if (!node.empty()) request["node"] = node;
  auto reply = checker_.request(path.parent_path().string(), json_text(request), timeout_seconds);
  CheckerReply out;
  out.line = std::move(reply.line);
  out.failure = std::move(reply.failure);
  if (!out.line) {
    std::string level;
    last_step(out.failure.stderr_text, &level, &out.last_step);
  }
  return out;
}

PersistentChild::Reply OrtRunner::raw_request(const std::string& line, double timeout_seconds) {
  return runner_.request("", line, timeout_seconds);
}

std::optional<std::string> OrtRunner::version(std::string* why) {
  if (version_) return version_;
  const std::string& ort_dir = options_.ort_dir.empty() ? options_.runner_dir : options_.ort_dir;
  if (!fs::exists(fs::path(ort_dir) / "node_modules" / "onnxruntime-node")) {
    if (why)
      *why = "onnxruntime-node is not installed in " + ort_dir +
             (options_.ort_dir.empty() ? " (run scripts/install-deps.sh)"
                                       : " (convfail runtimes install VERSION)");
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
    if (j.value("ok", false)) {
      if (j.contains("unheld_types") && j["unheld_types"].is_array())
        for (const auto& t : j["unheld_types"])
          if (t.is_string())
            if (int type = elem_type_from_ort_name(t.get<std::string>()))
              unheld_types_.insert(type);
      return version_ = text_value(j, "ort_version", 100);
    }
    if (why) *why = text_value(j, "error", 300);
  } catch (const std::exception& e) {
    if (why) *why = std::string("runner spoke garbage: ") + e.what();
  }
  return std::nullopt;
}

namespace {

// The request's "inputs": given data written into `work`, else the seed to generate it from.
json input_specs(const std::vector<RunnerInput>& inputs, const fs::path& work) {
  json out = json::array();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const RunnerInput& in = inputs[i];
    json spec = {{"name", in.name}, {"type", ort_type_name(in.elem_type)}, {"dims", in.dims}};
    if (in.widen) spec["widen"] = "float32";
    if (in.data) {
      std::string file = (work / ("input_" + std::to_string(i) + ".bin")).string();
      write_tensor_file(*in.data, file);
      spec["file"] = file;
      spec["dims"] = in.data->dims;
    } else {
      spec["seed"] = std::to_string(in.seed);
    }
    out.push_back(spec);
  }
  return out;
}

// The request's "narrow" list (runner.js): null for an output as is, else its name and type.
json narrow_json(const std::vector<NarrowedOutput>& narrow) {
  json out = json::array();
  for (const auto& n : narrow)
    out.push_back(n.elem_type ? json{{"name", n.name}, {"type", ort_type_name(n.elem_type)}}
                              : json());
  return out;
}

OutputCheck check_from(const json& c) {
  OutputCheck check;
  check.output = text_value(c, "output", 200);
  check.against = text_value(c, "against", 20);
  check.level = text_value(c, "level", 20);
  check.result.match = c.at("match").get<bool>();
  check.result.problem = text_value(c, "problem", 300);
  check.result.max_abs_error = error_value(c, "max_abs_error");
  check.result.max_rel_error = error_value(c, "max_rel_error");
  check.result.mismatches = c.value("mismatches", std::int64_t{0});
  check.result.min_tolerance = c.contains("min_tolerance") && c["min_tolerance"].is_number()
                                   ? std::max(0.0, error_value(c, "min_tolerance"))
                                   : -1;
  check.result.type = text_value(c, "type", 20);
  return check;
}

// The outputs the runner saved into `saved_dir` ("saved" of its reply); throws on a file
// elsewhere, an unknown type or a size that does not match.
void read_saved_outputs(const json& j, const RunnerRequest& rq, const fs::path& saved_dir,
                        RunnerReply& out) {
  for (auto& [level, list] : j.at("saved").items()) {
    std::vector<Tensor>& tensors = out.outputs[level.substr(0, 20)];
    for (const auto& o : list) {
      Tensor t;
      if (o.is_object()) {
        std::string file = text_value(o, "file", 4096);
        int type = elem_type_from_ort_name(text_value(o, "type", 20));
        // Only files the runner wrote where it was asked to (the scratch folder).
        if (!path_within(file, saved_dir.string()) || type == 0)
          throw std::runtime_error("saved output outside its folder or of unknown type");
        t = read_tensor_file(file, type, o.at("dims").get<std::vector<std::int64_t>>(),
                             rq.max_elements);
        t.name = text_value(o, "name", 200);
      }
      tensors.push_back(std::move(t));
    }
  }
}

}  // namespace

RunnerReply OrtRunner::run(const RunnerRequest& rq) {
  RunnerReply out;
  std::error_code ec;
  fs::path model = fs::weakly_canonical(fs::absolute(rq.model), ec);
  // Given tensors go through files in a folder of the scratch folder, removed afterwards.
  fs::path work = fs::path(scratch_) / ("run-" + std::to_string(++runs_));
  fs::create_directories(work);
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{work};
  std::string model_file = model.string();
  if (!rq.model_bytes.empty()) {
    model_file = (work / "model.onnx").string();
    std::ofstream file(model_file, std::ios::binary | std::ios::trunc);
    file.write(rq.model_bytes.data(), static_cast<std::streamsize>(rq.model_bytes.size()));
    if (!file.flush()) {
      out.step = "io";
      out.error = "cannot write the wrapped model into " + work.string();
      return out;
    }
  }
  json req = {{"op", "run"},
              {"model", model_file},
              {"levels", {"disabled", "all"}},
              {"threads", options_.threads},
              {"max_elements", rq.max_elements},
              {"atol", rq.tolerance.atol},
              {"rtol", rq.tolerance.rtol}};
  req["inputs"] = input_specs(rq.inputs, work);
  if (rq.references) {
    json refs = json::array();
    for (std::size_t i = 0; i < rq.references->size(); ++i) {
      const Tensor& t = (*rq.references)[i];
      json spec = {{"type", ort_type_name(t.elem_type)},
                   {"onnx_type", onnx_type_name(t.elem_type)},
                   {"dims", t.dims}};
      if (!ort_type_name(t.elem_type).empty()) {
        std::string file = (work / ("reference_" + std::to_string(i) + ".bin")).string();
        write_tensor_file(t, file);
        spec["file"] = file;
      }
      refs.push_back(spec);
    }
    req["refs"] = refs;
  }
  if (!rq.narrow.empty()) req["narrow"] = narrow_json(rq.narrow);
  fs::path saved_dir = work / "outputs";
  if (rq.save_outputs) {
    fs::create_directories(saved_dir);
    req["save_outputs"] = saved_dir.string();
  }
  auto reply = runner_.request(model.parent_path().string(), json_text(req), rq.timeout_seconds);
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
  if (!j.is_object() || !j.contains("ok") || j["ok"] != true) {
    out.step = j.is_object() ? text_value(j, "step", 20) : "";
    if (out.step.empty()) out.step = "protocol";
    out.level = j.is_object() ? text_value(j, "level", 20) : "";
    out.error = j.is_object() ? text_value(j, "error") : "";
    if (out.error.empty()) out.error = "runner failed";
    return out;
  }
  try {
    for (auto& [level, result] : j.at("levels").items())
      out.run_ms[level.substr(0, 20)] = result.value("ms", 0.0);
    for (const auto& c : j.at("checks")) out.checks.push_back(check_from(c));
    if (rq.save_outputs && j.contains("saved")) read_saved_outputs(j, rq, saved_dir, out);
  } catch (const std::exception& e) {
    out.checks.clear();
    out.step = "io";
    out.error = std::string("bad runner reply: ") + e.what();
    return out;
  }
  out.ok = true;
  return out;
}

}  // namespace convfail::exec
