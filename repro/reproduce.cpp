#include "repro/reproduce.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include <onnx/checker.h>
#include <onnx/common/version.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "repro/sandbox.h"
#include "repro/signature.h"

namespace convfail::repro {

namespace fs = std::filesystem;
using nlohmann::json;

std::string onnx_library_version() {
  return onnx::LAST_RELEASE_VERSION;
}

json ModelVerdict::to_json() const {
  json j = {{"model", model_path},
            {"verdict", verdict},
            {"step", step.empty() ? json() : json(step)},
            {"max_abs_error", max_abs_error},
            {"max_rel_error", max_rel_error},
            {"ort_version", ort_version},
            {"onnx_version", onnx_version},
            {"duration_ms", duration_ms}};
  if (!signature.empty()) j["signature"] = signature;
  if (!reason.empty()) j["reason"] = reason;
  if (!output_name.empty()) j["output"] = output_name;
  if (!error.empty()) j["error"] = error;
  json checks_json = json::array();
  for (const auto& c : checks) {
    json cj = {{"output", c.output},
               {"against", c.against},
               {"level", c.level},
               {"match", c.result.match},
               {"max_abs_error", c.result.max_abs_error},
               {"max_rel_error", c.result.max_rel_error}};
    if (!c.result.problem.empty()) cj["problem"] = c.result.problem;
    checks_json.push_back(cj);
  }
  if (!checks_json.empty()) j["outputs"] = checks_json;
  return j;
}

namespace {

// A temporary work directory removed on scope exit.
struct WorkDir {
  fs::path path;
  WorkDir() {
    std::random_device rd;
    path = fs::temp_directory_path() /
           ("convfail-repro-" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~WorkDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string first_lines(const std::string& s, size_t max = 600) {
  std::string out = s.substr(0, max);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// JSON encodes infinities as null; keep the stored numbers finite but recognisable.
double finite(double v) {
  return std::isinf(v) ? 1e308 : v;
}

struct Fail {
  std::string verdict, step, reason, error;
};

std::string value_kind(const onnx::TypeProto& t) {
  switch (t.value_case()) {
    case onnx::TypeProto::kTensorType:
      return "tensor";
    case onnx::TypeProto::kSequenceType:
      return "sequence";
    case onnx::TypeProto::kMapType:
      return "map";
    case onnx::TypeProto::kOptionalType:
      return "optional";
    case onnx::TypeProto::kSparseTensorType:
      return "sparse tensor";
    default:
      return "unknown type";
  }
}

// Graph inputs that are fed (not initializers).
std::vector<const onnx::ValueInfoProto*> fed_inputs(const onnx::GraphProto& g) {
  std::set<std::string> inits;
  for (const auto& i : g.initializer()) inits.insert(i.name());
  std::vector<const onnx::ValueInfoProto*> out;
  for (const auto& in : g.input())
    if (!inits.count(in.name())) out.push_back(&in);
  return out;
}

std::optional<Fail> check_structure(onnx::ModelProto& model, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail{kNotRunnable, "parse", "cannot read model file", ""};
  if (!model.ParseFromIstream(&in)) {
    // A download that is a web page (login wall, viewer) is not the model the issue attached.
    std::ifstream again(path, std::ios::binary);
    std::string head(256, '\0');
    again.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(again.gcount()));
    auto first = head.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && head[first] == '<')
      return Fail{kNotRunnable, "parse", "the file is an HTML/XML page, not a model", ""};
    return Fail{kCrashReproduced, "parse", "", "model file does not parse as an ONNX ModelProto"};
  }
  if (!model.has_graph()) return Fail{kCrashReproduced, "parse", "", "model has no graph"};
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  for (const auto& op : model.opset_import()) {
    std::string domain = op.domain() == "ai.onnx" ? "" : op.domain();
    auto it = ranges.find(domain);
    if (it != ranges.end() && op.version() > it->second.second)
      return Fail{kNotRunnable, "checker",
                  "opset " + std::to_string(op.version()) + " of domain '" + domain +
                      "' is newer than this libonnx (" + onnx_library_version() + ")",
                  ""};
  }
  // libonnx is not hardened against hostile models (shape inference segfaults on some): the
  // checks run in a forked child with limits, and a crash there is a crash verdict.
  // Build the schema registry once in convfail itself, or every forked child spends ~0.2 s on it.
  static const bool registry_ready = onnx::OpSchemaRegistry::Schema("Add") != nullptr;
  (void)registry_ready;
  SandboxLimits limits;
  limits.memory_bytes = 4ull << 30;
  limits.cpu_seconds = 60;
  limits.wall_seconds = 60;
  auto r = run_in_fork(
      [&model](const std::function<void(const std::string&)>& emit) {
        emit("step checker\n");
        try {
          onnx::checker::check_model(model);
        } catch (const std::exception& e) {
          emit(json{{"fail", "checker"}, {"error", e.what()}}.dump() + "\n");
          return;
        }
        emit("step shape_inference\n");
        try {
          onnx::ShapeInferenceOptions strict(/*check_type=*/true, /*error_mode=*/1);
          onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), strict);
        } catch (const std::exception& e) {
          emit(json{{"fail", "shape_inference"}, {"error", e.what()}}.dump() + "\n");
          return;
        }
        emit("ok\n");
      },
      limits);
  std::string text = r.stdout_text;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  std::string last = text.substr(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
  if (r.ok() && last == "ok") return std::nullopt;
  if (r.ok() && !last.empty() && last[0] == '{') {
    json j = json::parse(last, nullptr, false);
    if (!j.is_discarded())
      return Fail{kCrashReproduced, j.value("fail", std::string("checker")), "",
                  j.value("error", std::string())};
  }
  std::string step = last.rfind("step ", 0) == 0 ? last.substr(5) : "checker";
  if (r.kind == ExitKind::kSpawnFailed)
    return Fail{kNotRunnable, step, "cannot fork: " + r.error, ""};
  return Fail{kCrashReproduced, step, "", "libonnx " + r.describe()};
  return std::nullopt;
}

std::optional<Fail> prepare_inputs(const onnx::GraphProto& g, const ReproOptions& o,
                                   std::vector<Tensor>* inputs) {
  auto fed = fed_inputs(g);
  for (size_t i = 0; i < fed.size(); ++i) {
    const auto& vi = *fed[i];
    if (vi.type().value_case() != onnx::TypeProto::kTensorType)
      return Fail{kNotRunnable, "inputs",
                  "input '" + vi.name() + "' is a " + value_kind(vi.type()) +
                      " (onnxruntime-node feeds tensors only)",
                  ""};
    int elem = vi.type().tensor_type().elem_type();
    if (ort_type_name(elem).empty())
      return Fail{kNotRunnable, "inputs",
                  "input '" + vi.name() + "' has type " + onnx_type_name(elem) +
                      " (not supported by onnxruntime-node)",
                  ""};
    if (!o.inputs_dir.empty()) {
      fs::path file = fs::path(o.inputs_dir) / ("input_" + std::to_string(i) + ".pb");
      if (!fs::exists(file))
        return Fail{kNotRunnable, "inputs", "missing " + file.filename().string(), ""};
      try {
        Tensor t = read_tensor_pb(file.string());
        t.name = vi.name();
        if (t.elem_type != elem)
          return Fail{kNotRunnable, "inputs",
                      file.filename().string() + " has type " + onnx_type_name(t.elem_type) +
                          ", the graph wants " + onnx_type_name(elem),
                      ""};
        inputs->push_back(std::move(t));
      } catch (const std::exception& e) {
        return Fail{kNotRunnable, "inputs", e.what(), ""};
      }
      continue;
    }
    std::vector<std::int64_t> dims;
    for (const auto& d : vi.type().tensor_type().shape().dim()) {
      if (d.has_dim_value()) {
        dims.push_back(d.dim_value());
      } else {
        auto it = o.dims.find(d.dim_param());
        dims.push_back(it != o.dims.end() ? it->second : 1);
      }
    }
    try {
      inputs->push_back(generate_tensor(vi.name(), elem, dims, o.seed + i));
    } catch (const std::exception& e) {
      return Fail{kNotRunnable, "inputs", e.what(), ""};
    }
  }
  return std::nullopt;
}

// Reference outputs output_N.pb in the inputs dir, by graph output order (nullopt: none given).
std::optional<std::vector<Tensor>> reference_outputs(const onnx::GraphProto& g,
                                                     const ReproOptions& o,
                                                     std::optional<Fail>* fail) {
  if (o.inputs_dir.empty() || !fs::exists(fs::path(o.inputs_dir) / "output_0.pb"))
    return std::nullopt;
  std::vector<Tensor> refs;
  for (int i = 0; i < g.output_size(); ++i) {
    const auto& vi = g.output(i);
    if (vi.type().value_case() != onnx::TypeProto::kTensorType) {
      *fail = Fail{kNotRunnable, "inputs",
                   "output '" + vi.name() + "' is a " + value_kind(vi.type()) +
                       " (onnxruntime-node returns tensors only)",
                   ""};
      return std::nullopt;
    }
    fs::path file = fs::path(o.inputs_dir) / ("output_" + std::to_string(i) + ".pb");
    try {
      Tensor t = read_tensor_pb(file.string());
      t.name = vi.name();
      refs.push_back(std::move(t));
    } catch (const std::exception& e) {
      *fail = Fail{kNotRunnable, "inputs", std::string("reference output: ") + e.what(), ""};
      return std::nullopt;
    }
  }
  return refs;
}

void apply(ModelVerdict& v, const Fail& f) {
  v.verdict = f.verdict;
  v.step = f.step;
  v.reason = f.reason;
  v.error = first_lines(f.error);
  if (!f.error.empty()) v.signature = error_signature(f.error);
}

void compare_outputs(ModelVerdict& v, const RunnerReply& reply,
                     const std::optional<std::vector<Tensor>>& refs, const Tolerance& tol) {
  auto add = [&](const std::string& name, const std::string& against, const std::string& level,
                 CompareResult r) {
    v.checks.push_back({name, against, level, r});
  };
  for (const auto& level : {"disabled", "all"}) {
    auto it = reply.outputs.find(level);
    if (it == reply.outputs.end()) continue;
    const auto& outs = it->second;
    for (size_t i = 0; i < outs.size(); ++i) {
      if (refs && i < refs->size()) {
        CompareResult r;
        if (!outs[i].present) {
          r.match = false;
          r.problem = "output missing";
        } else {
          r = compare_tensors(outs[i].tensor, (*refs)[i], tol);
        }
        add(outs[i].name, "reference", level, r);
      }
    }
  }
  // Optimized against unoptimized.
  auto d = reply.outputs.find("disabled"), a = reply.outputs.find("all");
  if (d != reply.outputs.end() && a != reply.outputs.end()) {
    for (size_t i = 0; i < d->second.size() && i < a->second.size(); ++i) {
      if (!d->second[i].present || !a->second[i].present) {
        if (d->second[i].present != a->second[i].present) {
          CompareResult r;
          r.match = false;
          r.problem = "output present in one session only";
          add(d->second[i].name, "optimized", "all", r);
        }
        continue;
      }
      add(d->second[i].name, "optimized", "all",
          compare_tensors(a->second[i].tensor, d->second[i].tensor, tol));
    }
  }
  // The worst failed check: a shape/type/missing problem first, then the largest error.
  const OutputCheck* worst_check = nullptr;
  auto rank = [](const CompareResult& r) { return r.mismatches == 0 ? INFINITY : r.max_abs_error; };
  for (const auto& c : v.checks) {
    v.max_abs_error = std::max(v.max_abs_error, finite(c.result.max_abs_error));
    v.max_rel_error = std::max(v.max_rel_error, finite(c.result.max_rel_error));
    if (!c.result.match && (!worst_check || rank(c.result) > rank(worst_check->result)))
      worst_check = &c;
  }
  if (worst_check) {
    v.verdict = kWrongOutputReproduced;
    v.step = "compare";
    v.output_name = worst_check->output;
    v.signature = "output " + worst_check->output + " vs " + worst_check->against + ": " +
                  worst_check->result.problem;
  } else {
    v.verdict = kNotReproduced;
  }
}

}  // namespace

ModelVerdict reproduce_model(OrtRunner& runner, const std::string& model_path,
                             const ReproOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  ModelVerdict v;
  v.model_path = model_path;
  v.onnx_version = onnx_library_version();
  auto done = [&]() -> ModelVerdict {
    v.duration_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return v;
  };
  onnx::ModelProto model;
  if (auto f = check_structure(model, model_path)) {
    apply(v, *f);
    return done();
  }
  std::vector<Tensor> inputs;
  if (auto f = prepare_inputs(model.graph(), options, &inputs)) {
    apply(v, *f);
    return done();
  }
  std::optional<Fail> ref_fail;
  auto refs = reference_outputs(model.graph(), options, &ref_fail);
  if (ref_fail) {
    apply(v, *ref_fail);
    return done();
  }
  std::string why;
  auto version = runner.version(&why);
  if (!version) {
    apply(v, Fail{kNotRunnable, "session", why, ""});
    return done();
  }
  v.ort_version = *version;
  WorkDir work;
  RunnerReply reply = runner.run(model_path, inputs, work.path.string(), options.timeout_seconds);
  if (!reply.ok) {
    if (reply.process) {
      // The runtime died: a signal, a timeout or memory exhaustion is the crash.
      v.verdict = kCrashReproduced;
      v.step = reply.step == "process" ? "session" : reply.step;
      const auto& p = *reply.process;
      if (p.kind == ExitKind::kTimeout)
        v.signature = "timeout";
      else if (p.kind == ExitKind::kMemoryExhausted)
        v.signature = "memory exhausted";
      else if (p.kind == ExitKind::kSignaled)
        v.signature = "signal " + signal_name(p.signal);
      else
        v.signature = "runner " + p.describe();
      v.error = first_lines(
          reply.error + "\n" +
          p.stderr_text.substr(p.stderr_text.size() > 400 ? p.stderr_text.size() - 400 : 0));
    } else if (reply.step == "session" || reply.step == "run") {
      apply(v, Fail{kCrashReproduced, reply.step, "", reply.error});
    } else {
      apply(v, Fail{kNotRunnable, reply.step, "runner: " + first_lines(reply.error, 300), ""});
    }
    return done();
  }
  compare_outputs(v, reply, refs, options.tolerance);
  return done();
}

}  // namespace convfail::repro
