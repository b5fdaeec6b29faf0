#include "campaign/run/oracle.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

#include "campaign/run/worker_reply.h"
#include "core/error.h"
#include "core/resources.h"
#include "core/text.h"
#include "exec/child_files.h"
#include "exec/compare.h"
#include "exec/ort_runner.h"
#include "exec/persistent_child.h"
#include "exec/python_child.h"
#include "exec/scratch_dir.h"
#include "exec/signature.h"
#include "repro/repro_command.h"
#include "repro/reproduce.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace convfail::campaign {
namespace {

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

std::string describe_death(const exec::SandboxResult& f) {
  if (f.kind == exec::ExitKind::kTimeout) return "timeout";
  if (f.kind == exec::ExitKind::kMemoryExhausted) return "memory exhausted";
  if (f.kind == exec::ExitKind::kSignaled) return "signal " + exec::signal_name(f.signal);
  return f.describe();
}

}  // namespace

std::string default_campaign_worker() {
  return resource_path("CONVFAIL_CAMPAIGN_WORKER", "campaign_harness/campaign_worker.py");
}

// The worker and its three folders: `scratch` the worker's only writable folder (a fresh one for
// each worker, so nothing a worker left survives it), `inbox` what convfail hands it (scripts,
// specs; read-only inside, written before the request), `held` the files taken out of `scratch`
// through exec/child_files (no child ever sees it; ONNX Runtime and the store read them there).
struct Oracle::Impl {
  OracleOptions options;
  exec::ScratchDir inbox{"campaign-in"}, held{"campaign-held"};
  std::unique_ptr<exec::ScratchDir> scratch;
  std::unique_ptr<exec::PersistentChild> worker;
  std::unique_ptr<exec::OrtRunner> ort;
  int worker_starts = 0;
  int runs = 0;
  std::string last_held;  // the previous model's folder in `held`, removed by the next run

  explicit Impl(OracleOptions o) : options(std::move(o)) {
    exec::RunnerOptions ro = repro::runner_options_for(options.ort_version);
    ro.warm = options.warm;
    ro.model_roots = {held.path()};
    ro.limits.wall_seconds = options.timeout_seconds;
    // --memory-mb bounds ONNX Runtime as it bounds the worker: a model of several GiB (external
    // data) does not load under the runner's default 4 GiB of address space.
    ro.limits.memory_bytes =
        std::max<std::uint64_t>(ro.limits.memory_bytes, options.memory_mb << 20);
    ort = std::make_unique<exec::OrtRunner>(ro);
  }

  void stop_worker() {
    worker.reset();   // kills it (and everything it started: its PID namespace)
    scratch.reset();  // and its folder goes with it
  }

  void start_worker() {
    std::string program = default_campaign_worker();
    if (!fs::is_regular_file(program))
      throw UserError("campaign worker not found: " + program + " (set CONVFAIL_CAMPAIGN_WORKER)");
    scratch = std::make_unique<exec::ScratchDir>("campaign");
    exec::SandboxSpec spec = exec::python_worker_spec(program, {}, scratch->path(), {inbox.path()});
    spec.limits.memory_bytes = options.memory_mb << 20;
    spec.limits.cpu_seconds = 0;  // a warm worker lives long; the wall timeout is per request
    spec.limits.wall_seconds = options.timeout_seconds;
    // torchvision's largest architectures export 0.8-2 GB of weights (protobuf's own cap is 2 GB).
    spec.limits.file_size_bytes = kMaxModelFileBytes;
    worker = std::make_unique<exec::PersistentChild>(spec);
  }

  std::optional<std::string> ask(const json& request, double timeout, exec::SandboxResult* failure,
                                 std::string* last_stage) {
    if (!worker) start_worker();
    int before = worker->starts();
    auto reply = worker->request(request.dump(), timeout);
    worker_starts += worker->starts() - before;
    if (reply.line) return reply.line;
    *failure = reply.failure;
    *last_stage = stage_from(worker->stderr_tail() + reply.failure.stderr_text);
    stop_worker();  // a fresh one (and a fresh folder) for the next request
    return std::nullopt;
  }

  // A file convfail hands the worker: copied into the inbox under a fresh name.
  std::string hand_in(const std::string& host_file, const std::string& name) {
    fs::path copy = fs::path(inbox.path()) / name;
    std::error_code ec;
    fs::copy_file(host_file, copy, ec);
    if (ec) throw UserError("cannot read " + host_file + ": " + ec.message());
    fs::permissions(copy,
                    fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                        fs::perms::others_read,
                    ec);
    return copy.string();
  }

  json model_request(const ModelTask& task, const std::string& out);
  void take_out(const std::string& rel, ModelResult& r);
  void ort_stage(ModelResult& r);
};

Oracle::Oracle(OracleOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

Oracle::~Oracle() = default;

int Oracle::worker_starts() const {
  return impl_->worker_starts;
}

int Oracle::runner_starts() const {
  return impl_->ort->process_starts();
}

json Oracle::versions() {
  exec::SandboxResult failure;
  std::string stage;
  // The first start imports torch: give it time on a loaded machine.
  auto line = impl_->ask({{"op", "hello"}}, std::max(120.0, impl_->options.timeout_seconds),
                         &failure, &stage);
  if (!line)
    throw UserError("the torch worker does not start: " + failure.describe() + ": " +
                    terminal_safe(failure.stderr_text.substr(
                        failure.stderr_text.size() > 300 ? failure.stderr_text.size() - 300 : 0)));
  json j = json::parse(*line, nullptr, false);
  if (!j.is_object() || !j.value("ok", false))
    throw UserError("the torch worker failed: " + terminal_safe(line->substr(0, 300)));
  std::string why;
  auto ort = impl_->ort->version(&why);
  if (!ort) throw UserError(why);
  auto text = [&](const char* key) {
    return j.contains(key) && j[key].is_string()
               ? json(truncate_utf8(j[key].get<std::string>(), 60))
               : json();
  };
  return {{"torch", text("torch")},
          {"onnx", text("onnx")},
          {"torchvision", text("torchvision")},
          {"torchaudio", text("torchaudio")},
          {"onnxruntime", *ort},
          {"onnx_checker", repro::onnx_library_version()}};
}

json Oracle::zoo_models(const std::vector<std::string>& libraries) {
  exec::SandboxResult failure;
  std::string stage;
  auto line = impl_->ask({{"op", "models"}, {"libraries", libraries}}, 120, &failure, &stage);
  if (!line) throw UserError("the torch worker died listing architectures: " + failure.describe());
  json j = json::parse(*line, nullptr, false);
  if (!j.is_object() || !j.value("ok", false) || !j.contains("models") || !j["models"].is_array())
    throw UserError("the torch worker cannot list the architectures: " +
                    terminal_safe(j.is_object() && j.contains("error") && j["error"].is_string()
                                      ? truncate_utf8(j["error"].get<std::string>(), 300)
                                      : line->substr(0, 300)));
  json out = json::array();
  auto text = [](const json& m, const char* key) { return m.contains(key) && m[key].is_string(); };
  for (const auto& m : j["models"])
    if (m.is_object() && text(m, "name") && text(m, "family") && text(m, "library"))
      out.push_back({{"name", truncate_utf8(m["name"].get<std::string>(), 100)},
                     {"family", truncate_utf8(m["family"].get<std::string>(), 40)},
                     {"library", truncate_utf8(m["library"].get<std::string>(), 40)}});
  return out;
}

json Oracle::support_table() {
  exec::SandboxResult failure;
  std::string stage;
  auto line = impl_->ask({{"op", "support_table"}}, 120, &failure, &stage);
  if (!line) throw UserError("the torch worker died listing its operators: " + failure.describe());
  json j = json::parse(*line, nullptr, false);
  return j.is_discarded() ? json() : j;
}

void Oracle::set_support(const json& support) {
  impl_->options.support = support;
}

json Oracle::Impl::model_request(const ModelTask& task, const std::string& out) {
  json req = {{"op", "model"},
              {"out", out},
              {"source", task.source},
              {"seed", task.seed},
              {"nodes", task.nodes},
              {"max_elements", options.max_elements},
              {"dtypes", options.dtypes},
              {"inputs", task.inputs > 0 ? task.inputs : options.inputs},
              {"opset", task.opset > 0 ? task.opset : options.opset}};
  if (!task.single_op.empty())
    req["single"] = {
        {"op", task.single_op}, {"dtype", task.single_dtype}, {"variant", task.single_variant}};
  else if (task.source == "synthetic" && task.spec_path.empty() && !options.support.is_null())
    req["support"] = options.support;
  if (task.perturb) req["perturb"] = true;
  if (task.external_data) req["external_data"] = true;
  if (!task.arch.empty()) {  // torchvision, torchaudio, text
    req["name"] = task.arch;
    req["family"] = task.family;
  }
  if (task.source == "torchvision" && options.image_size > 0) req["image"] = options.image_size;
  const std::string n = std::to_string(runs);
  if (task.source == "script") req["file"] = hand_in(task.script, "script-" + n + ".py");
  if (!task.spec_path.empty()) {
    req["spec"] = hand_in(task.spec_path, "spec-" + n + ".json");
    if (task.keep) req["keep"] = *task.keep;
  }
  return req;
}

// Takes the worker's folder `rel` out of its scratch folder (regular files only, capped) into
// `held`, then removes it from the scratch folder.
void Oracle::Impl::take_out(const std::string& rel, ModelResult& r) {
  fs::path dest = fs::path(held.path()) / rel;
  exec::ChildFileLimits limits;
  limits.max_file_bytes = kMaxModelFileBytes;
  limits.max_total_bytes = 2 * kMaxModelFileBytes;
  exec::CopiedTree copied;
  std::string why;
  r.model_dir = dest.string();
  last_held = dest.string();
  if (!scratch ||
      !exec::copy_child_tree(scratch->path(), rel, dest.string(), limits, &copied, &why)) {
    fs::create_directories(dest);
    r.take_problem = "the worker's files were not taken: " + (scratch ? why : "worker gone");
  } else {
    for (const auto& s : copied.skipped)
      if (s.rfind("model.onnx ", 0) == 0 || s.rfind("set_", 0) == 0)
        r.take_problem = "the worker left " + s;
  }
  if (scratch) exec::remove_child_tree((fs::path(scratch->path()) / rel).string());
  r.has_model = exec::is_child_file(dest.string(), "model.onnx");
}

ModelResult Oracle::run(const ModelTask& task) {
  Impl& m = *impl_;
  ModelResult r;
  r.nodes = task.nodes;
  if (!m.last_held.empty()) exec::remove_child_tree(m.last_held);
  m.last_held.clear();
  const std::string rel = "m-" + std::to_string(++m.runs);
  // A real architecture (torchvision, torchaudio, text) leaves the worker's heap fragmented by up
  // to gigabytes: the next large one then fails to allocate under the address-space limit. One
  // fresh worker per architecture costs ~2 s against seconds to minutes of export. A script is
  // untrusted code: a fresh worker before and after it, so that no state crosses from one program
  // to the next.
  bool fresh = !m.options.warm || task.source != "synthetic";
  if (fresh) m.stop_worker();
  if (!m.worker) m.start_worker();
  json req = m.model_request(task, (fs::path(m.scratch->path()) / rel).string());
  auto t0 = std::chrono::steady_clock::now();
  exec::SandboxResult failure;
  std::string stage;
  auto line = m.ask(req, m.options.timeout_seconds, &failure, &stage);
  r.durations["worker"] = seconds_since(t0);
  m.take_out(rel, r);
  if (task.source == "script") m.stop_worker();
  if (!line) {
    // The worker died: that is this model's outcome (in export: the converter's). A timeout
    // decides nothing (a loaded machine, a large model): our limit, not_run, said as such.
    std::string death = describe_death(failure);
    r.stage = stage;
    bool timeout = failure.kind == exec::ExitKind::kTimeout;
    bool converter = (stage == "export" || stage == "inputs") && !timeout;
    r.outcome = converter ? kConversionFailure : timeout ? kNotRun : kInvalid;
    // torch.onnx.export writes into the folder as it goes (external data files, then model.onnx):
    // what a worker that died left is no exported model.
    r.has_model = false;
    r.message = terminal_safe("torch worker " + death + " in " + stage);
    r.signature = exec::error_signature("torch worker " + death + " in " + stage);
    return r;
  }
  std::string why;
  auto reply = parse_worker_reply(*line, &why);
  if (!reply || !reply->ok) {
    r.outcome = kInvalid;
    r.stage = "protocol";
    std::string err = reply ? reply->raw_error : "worker reply refused: " + why;
    r.message = truncate_utf8(terminal_safe(err), kMaxMessage);
    r.signature = exec::error_signature(reply ? "worker: " + err : "worker reply refused");
    return r;
  }
  for (auto& [k, v] : reply->durations.items()) r.durations[k] = v;
  if (reply->nodes >= 0) r.nodes = reply->nodes;
  r.ops = reply->ops;
  r.edges = reply->edges;
  r.dtypes = reply->dtypes;
  r.main_dtype = reply->main_dtype;
  if (!reply->exported) {
    r.outcome = reply->outcome;
    r.stage = reply->stage;
    std::string err = reply->raw_error;
    if (reply->error_type == "out_of_memory") {
      // Our limit, not the converter's defect: not_run, said with the limit that ran out.
      r.outcome = kNotRun;
      err = "out of memory under --memory-mb " + std::to_string(m.options.memory_mb) + " in " +
            r.stage + ": " + err;
    }
    r.message = truncate_utf8(terminal_safe(err), kMaxMessage);
    r.signature = exec::error_signature(err);
    return r;
  }
  if (!r.has_model || !r.take_problem.empty()) {
    // It says it exported, but what it left is not a model file (a link, a FIFO, too large).
    r.outcome = kInvalid;
    r.stage = "protocol";
    r.message = truncate_utf8(
        terminal_safe(r.take_problem.empty() ? "the worker left no model.onnx" : r.take_problem),
        kMaxMessage);
    r.signature = exec::error_signature("worker output refused");
    return r;
  }
  m.ort_stage(r);
  return r;
}

std::string difference_kind(const exec::CompareResult& c) {
  if (c.mismatches == 0 && c.match && c.min_tolerance <= 0) return "";
  if (c.mismatches == 0 && !c.match) return "shape, type or missing output";
  if (!(c.max_abs_error < 1e300)) return "non-finite value";
  static const std::set<std::string> integers = {"INT8",   "UINT8", "INT16",  "UINT16", "INT32",
                                                 "UINT32", "INT64", "UINT64", "BOOL"};
  if (integers.count(c.type)) return "integer output";
  return c.max_abs_error <= 1e-3 ? "small float difference" : "large float difference";
}

std::string mismatch_kind(const exec::CompareResult& c) {
  return c.mismatches == 0 ? "" : difference_kind(c) + ", ";
}

void Oracle::Impl::ort_stage(ModelResult& r) {
  auto t0 = std::chrono::steady_clock::now();
  fs::path out = r.model_dir;
  bool unopt = false, opt = false, between = false, tolerance_known = true;
  std::string problem;
  std::optional<exec::CompareResult> widest;  // the comparison needing the largest tolerance
  for (int k = 0; k < options.inputs; ++k) {
    fs::path set = out / ("set_" + std::to_string(k));
    if (!fs::is_directory(set)) break;
    repro::ReproOptions ro;
    ro.tolerance.atol = options.atol;
    ro.tolerance.rtol = options.rtol;
    ro.timeout_seconds = options.timeout_seconds;
    ro.inputs_dir = set.string();
    // --max-elements bounds what the generator builds; a real architecture's output (a
    // segmentation map of 21x520x520) is bounded only by this runner-side cap.
    ro.max_elements = std::max<std::int64_t>(options.max_elements, kMaxOutputElements);
    repro::RunVerdict v = repro::reproduce_model(*ort, (out / "model.onnx").string(), ro);
    if (r.harness_note.empty()) r.harness_note = truncate_utf8(v.harness_note, kMaxMessage);
    r.max_abs_diff = std::max(r.max_abs_diff, v.max_abs_error.value_or(0));
    r.max_rel_diff = std::max(r.max_rel_diff, v.max_rel_error.value_or(0));
    if (v.verdict == repro::kCrashReproduced) {
      bool structure = v.step == "parse" || v.step == "checker" || v.step == "shape_inference";
      // An exported model the ONNX checker refuses is the converter's failure: it wrote a model
      // ONNX forbids (not an export that raised).
      r.outcome = structure ? kInvalidExport : kOrtFailure;
      r.stage = v.step;
      r.message = truncate_utf8(v.message.empty() ? v.signature : v.message, kMaxMessage);
      r.signature = v.signature.empty() ? exec::error_signature(v.message) : v.signature;
      r.durations["ort"] = seconds_since(t0);
      return;
    }
    if (v.verdict == repro::kNotRunnable) {
      // The harness (or the release) cannot run it: no verdict on the model or the converter.
      r.outcome = kNotRun;
      r.stage = v.step;
      r.message = truncate_utf8("not run: " + v.reason, kMaxMessage);
      r.signature = exec::error_signature("not run: " + v.reason);
      r.durations["ort"] = seconds_since(t0);
      return;
    }
    for (const auto& c : v.checks) {
      tolerance_known = tolerance_known && c.result.min_tolerance >= 0;
      if (!widest || c.result.min_tolerance > widest->min_tolerance) widest = c.result;
      if (c.result.match) continue;
      if (problem.empty()) problem = mismatch_kind(c.result) + c.result.problem;
      if (c.against == "reference" && c.level == "disabled") unopt = true;
      if (c.against == "reference" && c.level == "all") opt = true;
      if (c.against == "optimized") between = true;
    }
  }
  r.durations["ort"] = seconds_since(t0);
  if (tolerance_known) {
    r.min_tolerance = widest ? widest->min_tolerance : 0;
    r.difference_kind = widest ? difference_kind(*widest) : "";
  }
  if (!unopt && !opt && !between) {
    r.outcome = kSuccess;
    return;
  }
  r.outcome = kMismatch;
  r.stage = "compare";
  r.mismatch_mode = unopt && opt ? "both" : unopt ? "unoptimised" : "optimised";
  r.message =
      truncate_utf8(terminal_safe("mismatch (" + r.mismatch_mode + "): " + problem), kMaxMessage);
  r.signature = exec::error_signature("mismatch " + r.mismatch_mode + ": " + problem);
}

}  // namespace convfail::campaign
