#include "testing/oracle.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/error.h"
#include "core/resources.h"
#include "core/text.h"
#include "repro/repro_command.h"
#include "repro/reproduce.h"
#include "repro/signature.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace convfail::testing {
namespace {

constexpr std::size_t kMaxMessage = 600;
constexpr std::uint64_t kMaxModelFileBytes = 3ull << 30;            // the worker's RLIMIT_FSIZE
constexpr std::int64_t kMaxOutputElements = std::int64_t{1} << 24;  // 64 MB of float32 per output

std::string stage_from(const std::string& stderr_tail) {
  const std::string marker = "convfail-stage ";
  auto at = stderr_tail.rfind(marker);
  if (at == std::string::npos) return "start";
  auto end = stderr_tail.find('\n', at);
  return stderr_tail.substr(
      at + marker.size(), end == std::string::npos ? std::string::npos : end - at - marker.size());
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string describe_death(const repro::SandboxResult& f) {
  if (f.kind == repro::ExitKind::kTimeout) return "timeout";
  if (f.kind == repro::ExitKind::kMemoryExhausted) return "memory exhausted";
  if (f.kind == repro::ExitKind::kSignaled) return "signal " + repro::signal_name(f.signal);
  return f.describe();
}

}  // namespace

const std::vector<std::string>& outcome_classes() {
  static const std::vector<std::string> k = {kConversionFailure, kOrtFailure, kMismatch, kSuccess,
                                             kInvalid};
  return k;
}

std::string default_campaign_worker() {
  return resource_path("CONVFAIL_CAMPAIGN_WORKER", "testing_harness/campaign_worker.py");
}

Oracle::Oracle(OracleOptions options) : options_(std::move(options)) {
  repro::RunnerOptions ro = repro::runner_options_for(options_.ort_version);
  ro.warm = options_.warm;
  ro.model_roots = {scratch_.path()};
  ro.limits.wall_seconds = options_.timeout_seconds;
  ort_ = std::make_unique<repro::OrtRunner>(ro);
}

Oracle::~Oracle() = default;

std::optional<std::string> Oracle::ask(const json& request, double timeout,
                                       repro::SandboxResult* failure, std::string* last_stage) {
  if (!worker_) {
    std::string worker = default_campaign_worker();
    if (!fs::is_regular_file(worker))
      throw UserError("campaign worker not found: " + worker + " (set CONVFAIL_CAMPAIGN_WORKER)");
    std::string dir = fs::path(worker).parent_path().string();
    repro::SandboxSpec spec;
    spec.argv = {"/usr/bin/python3", worker};
    fs::create_directories(fs::path(scratch_.path()) / "tmp");
    spec.env = repro::python_child_env(scratch_.path(), scratch_.path() + "/tmp",
                                       scratch_.path() + "/torch");
    spec.cwd = scratch_.path();
    // The worker imports tensor_tree from the torch harness's folder (repro/torch_harness).
    std::string tree = fs::path(default_torch_harness()).parent_path().string();
    spec.env["PYTHONPATH"] = tree;
    spec.read_only_paths = {dir, tree};
    spec.limits.writable_dir = scratch_.path();
    spec.limits.memory_bytes = options_.memory_mb << 20;
    spec.limits.cpu_seconds = 0;  // a warm worker lives long; the wall timeout is per request
    spec.limits.wall_seconds = options_.timeout_seconds;
    // torchvision's largest architectures export 0.8-2 GB of weights (protobuf's own cap is 2 GB).
    spec.limits.file_size_bytes = kMaxModelFileBytes;
    worker_ = std::make_unique<repro::PersistentChild>(spec);
  }
  int before = worker_->starts();
  auto reply = worker_->request(request.dump(), timeout);
  worker_starts_ += worker_->starts() - before;
  if (reply.line) return reply.line;
  *failure = reply.failure;
  *last_stage = stage_from(worker_->stderr_tail() + reply.failure.stderr_text);
  worker_->stop();  // restarted by the next request
  return std::nullopt;
}

json Oracle::versions() {
  repro::SandboxResult failure;
  std::string stage;
  // The first start imports torch: give it time on a loaded machine.
  auto line = ask({{"op", "hello"}}, std::max(120.0, options_.timeout_seconds), &failure, &stage);
  if (!line)
    throw UserError("the torch worker does not start: " + failure.describe() + ": " +
                    terminal_safe(failure.stderr_text.substr(
                        failure.stderr_text.size() > 300 ? failure.stderr_text.size() - 300 : 0)));
  json j = json::parse(*line, nullptr, false);
  if (!j.is_object() || !j.value("ok", false))
    throw UserError("the torch worker failed: " + terminal_safe(line->substr(0, 300)));
  std::string why;
  auto ort = ort_->version(&why);
  if (!ort) throw UserError(why);
  return {{"torch", j.value("torch", "")},
          {"onnx", j.value("onnx", "")},
          {"torchvision", j["torchvision"]},
          {"onnxruntime", *ort},
          {"onnx_checker", repro::onnx_library_version()}};
}

json Oracle::torchvision_models() {
  repro::SandboxResult failure;
  std::string stage;
  auto line = ask({{"op", "torchvision_models"}}, 120, &failure, &stage);
  if (!line) throw UserError("the torch worker died listing torchvision: " + failure.describe());
  json j = json::parse(*line, nullptr, false);
  if (!j.is_object() || !j.value("ok", false) || !j.contains("models"))
    throw UserError("torchvision is not available to the torch worker");
  return j["models"];
}

ModelResult Oracle::run(const ModelTask& task) {
  ModelResult r;
  r.nodes = task.nodes;
  std::error_code ec;
  fs::path out = fs::path(scratch_.path()) / "m";
  fs::remove_all(out, ec);
  json req = {{"op", "model"},
              {"out", out.string()},
              {"source", task.source},
              {"seed", task.seed},
              {"nodes", task.nodes},
              {"max_elements", options_.max_elements},
              {"dtypes", options_.dtypes},
              {"inputs", options_.inputs},
              {"opset", options_.opset}};
  if (task.perturb) req["perturb"] = true;
  if (task.source == "torchvision") {
    req["name"] = task.arch;
    req["family"] = task.family;
    if (options_.image_size > 0) req["image"] = options_.image_size;
  }
  if (task.source == "script") {
    // A copy inside the scratch folder: the worker reads it as uid 65534.
    fs::path copy = fs::path(scratch_.path()) / "script.py";
    fs::copy_file(task.script, copy, fs::copy_options::overwrite_existing, ec);
    if (ec) throw UserError("cannot read " + task.script + ": " + ec.message());
    req["file"] = copy.string();
  }
  if (!task.spec_path.empty()) {
    fs::path copy = fs::path(scratch_.path()) / "spec_in.json";
    fs::copy_file(task.spec_path, copy, fs::copy_options::overwrite_existing, ec);
    req["spec"] = copy.string();
    if (task.keep) req["keep"] = *task.keep;
  }
  // A torchvision architecture leaves the worker's heap fragmented by up to gigabytes: the next
  // large one then fails to allocate under the address-space limit. One fresh worker per
  // architecture costs ~2 s against minutes of export.
  if ((!options_.warm || task.source == "torchvision") && worker_) worker_->stop();
  auto t0 = std::chrono::steady_clock::now();
  repro::SandboxResult failure;
  std::string stage;
  auto line = ask(req, options_.timeout_seconds, &failure, &stage);
  r.durations["worker"] = seconds_since(t0);
  r.model_dir = out.string();
  if (!line) {
    // The worker died: that is this model's outcome (in export: the converter's). A timeout
    // decides nothing (a loaded machine, a large model): invalid, said as such.
    std::string death = describe_death(failure);
    r.stage = stage;
    bool converter =
        (stage == "export" || stage == "inputs") && failure.kind != repro::ExitKind::kTimeout;
    r.outcome = converter ? kConversionFailure : kInvalid;
    r.message = terminal_safe("torch worker " + death + " in " + stage);
    r.signature = repro::error_signature("torch worker " + death + " in " + stage);
    return r;
  }
  json j = json::parse(*line, nullptr, false);
  if (!j.is_object() || !j.value("ok", false)) {
    r.outcome = kInvalid;
    r.stage = "protocol";
    std::string err = j.is_object() && j.contains("error") && j["error"].is_string()
                          ? j["error"].get<std::string>()
                          : line->substr(0, 300);
    r.message = truncate_utf8(terminal_safe(err), kMaxMessage);
    r.signature = repro::error_signature("worker: " + err);
    return r;
  }
  if (j.contains("durations") && j["durations"].is_object())
    for (auto& [k, v] : j["durations"].items()) r.durations[k] = v;
  if (j.contains("nodes") && j["nodes"].is_number_integer()) r.nodes = j["nodes"].get<int>();
  if (j.contains("ops") && j["ops"].is_array()) r.ops = j["ops"];
  if (j.contains("edges") && j["edges"].is_array()) r.edges = j["edges"];
  r.has_model = fs::is_regular_file(out / "model.onnx");
  if (j.contains("outcome") && j["outcome"].is_string()) {
    r.outcome = j["outcome"].get<std::string>();
    r.stage = j.value("stage", "");
    std::string err = j.value("error", "");
    if (j.value("error_type", "") == "out_of_memory") {
      // Our limit, not the converter's defect: said with the limit that ran out.
      r.outcome = kInvalid;
      err = "out of memory under --memory-mb " + std::to_string(options_.memory_mb) + " in " +
            r.stage + ": " + err;
    }
    r.message = truncate_utf8(terminal_safe(err), kMaxMessage);
    r.signature = repro::error_signature(err);
    return r;
  }
  ort_stage(task, r);
  return r;
}

std::string mismatch_kind(const repro::CompareResult& c) {
  if (c.mismatches == 0) return "";
  if (!(c.max_abs_error < 1e300)) return "non-finite value, ";
  static const std::set<std::string> integers = {"INT8",   "UINT8", "INT16",  "UINT16", "INT32",
                                                 "UINT32", "INT64", "UINT64", "BOOL"};
  if (integers.count(c.type)) return "integer output, ";
  return c.max_abs_error <= 1e-3 ? "small float difference, " : "large float difference, ";
}

void Oracle::ort_stage(const ModelTask& task, ModelResult& r) {
  (void)task;
  auto t0 = std::chrono::steady_clock::now();
  fs::path out = r.model_dir;
  bool unopt = false, opt = false, between = false;
  std::string problem;
  for (int k = 0; k < options_.inputs; ++k) {
    fs::path set = out / ("set_" + std::to_string(k));
    if (!fs::is_directory(set)) break;
    repro::ReproOptions ro;
    ro.tolerance.atol = options_.atol;
    ro.tolerance.rtol = options_.rtol;
    ro.timeout_seconds = options_.timeout_seconds;
    ro.inputs_dir = set.string();
    // --max-elements bounds what the generator builds; a real architecture's output (a
    // segmentation map of 21x520x520) is bounded only by this runner-side cap.
    ro.max_elements = std::max<std::int64_t>(options_.max_elements, kMaxOutputElements);
    repro::ModelVerdict v = repro::reproduce_model(*ort_, (out / "model.onnx").string(), ro);
    r.max_abs_diff = std::max(r.max_abs_diff, v.max_abs_error);
    r.max_rel_diff = std::max(r.max_rel_diff, v.max_rel_error);
    if (v.verdict == repro::kCrashReproduced) {
      bool structure = v.step == "parse" || v.step == "checker" || v.step == "shape_inference";
      // An exported model the ONNX checker refuses is the converter's failure.
      r.outcome = structure ? kConversionFailure : kOrtFailure;
      r.stage = v.step;
      r.message = truncate_utf8(v.error.empty() ? v.signature : v.error, kMaxMessage);
      r.signature = v.signature.empty() ? repro::error_signature(v.error) : v.signature;
      r.durations["ort"] = seconds_since(t0);
      return;
    }
    if (v.verdict == repro::kNotRunnable) {
      r.outcome = kInvalid;
      r.stage = v.step;
      r.message = truncate_utf8("not runnable: " + v.reason, kMaxMessage);
      r.signature = repro::error_signature("not runnable: " + v.reason);
      r.durations["ort"] = seconds_since(t0);
      return;
    }
    for (const auto& c : v.checks) {
      if (c.result.match) continue;
      if (problem.empty()) problem = mismatch_kind(c.result) + c.result.problem;
      if (c.against == "reference" && c.level == "disabled") unopt = true;
      if (c.against == "reference" && c.level == "all") opt = true;
      if (c.against == "optimized") between = true;
    }
  }
  r.durations["ort"] = seconds_since(t0);
  if (!unopt && !opt && !between) {
    r.outcome = kSuccess;
    return;
  }
  r.outcome = kMismatch;
  r.stage = "compare";
  r.mismatch_mode = unopt && opt ? "both" : unopt ? "unoptimised" : "optimised";
  r.message =
      truncate_utf8(terminal_safe("mismatch (" + r.mismatch_mode + "): " + problem), kMaxMessage);
  r.signature = repro::error_signature("mismatch " + r.mismatch_mode + ": " + problem);
}

}  // namespace convfail::testing
