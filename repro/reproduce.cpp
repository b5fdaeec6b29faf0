#include "repro/reproduce.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include <onnx/checker.h>
#include <onnx/common/version.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <re2/re2.h>

#include "core/json_util.h"
#include "core/text.h"
#include "exec/sandbox.h"
#include "exec/signature.h"
#include "repro/boundary_casts.h"
#include "repro/kernel_types.h"

namespace convfail::repro {

namespace fs = std::filesystem;
using nlohmann::json;

std::string onnx_library_version() {
  return onnx::LAST_RELEASE_VERSION;
}

namespace {

// Text from a model, libonnx or the runtime as stored: at most `max` bytes, control characters
// and invalid UTF-8 escaped (core/text.h), newlines kept.
std::string first_lines(const std::string& s, size_t max = 600) {
  std::string out = s.substr(0, max);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return terminal_safe(out, /*keep_newlines=*/true);
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

std::optional<Fail> check_structure(exec::OrtRunner& runner, onnx::ModelProto& model,
                                    const std::string& path) {
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
  std::error_code ec;
  fs::path model_dir = fs::weakly_canonical(fs::absolute(path), ec).parent_path();
  if (!external_data_inside(model, model_dir.string()))
    return Fail{kNotRunnable, "parse", kExternalDataOutside, ""};
  // libonnx is not hardened against hostile models (shape inference segfaults on some): the
  // checks run in the sandboxed checker child, which sees the model's folder read-only; a crash
  // there is a crash verdict.
  auto r = runner.check((model_dir / fs::path(path).filename()).string(), 60);
  if (r.line) {
    json j = json::parse(*r.line, nullptr, false);
    if (j.is_object() && j.contains("ok") && j["ok"] == true) return std::nullopt;
    if (j.is_object() && j.contains("fail") && j["fail"] == "read")
      return Fail{kNotRunnable, "checker",
                  "the sandbox cannot read the model (it runs as uid 65534: the model file and its "
                  "folder must be readable by others)",
                  ""};
    if (j.is_object() && j.contains("fail") && j["fail"].is_string() && j.contains("error") &&
        j["error"].is_string()) {
      std::string step = j["fail"] == "shape_inference" ? "shape_inference" : "checker";
      return Fail{kCrashReproduced, step, "", j["error"].get<std::string>()};
    }
    return Fail{kNotRunnable, "checker", "the checker child spoke garbage", ""};
  }
  std::string step = r.last_step == "shape_inference" ? "shape_inference" : "checker";
  if (r.failure.kind == exec::ExitKind::kSpawnFailed)
    return Fail{kNotRunnable, step, "cannot start the checker: " + r.failure.error, ""};
  return Fail{kCrashReproduced, step, "", "libonnx " + r.failure.describe()};
}

std::string dims_text(const std::vector<std::int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// The inputs the runner is fed: read from input_N.pb, or declared (the runner generates them).
// No tensor sized by a declared shape is allocated here.
std::optional<Fail> prepare_inputs(const onnx::GraphProto& g, const ReproOptions& o,
                                   std::vector<exec::RunnerInput>* inputs) {
  auto fed = fed_inputs(g);
  for (size_t i = 0; i < fed.size(); ++i) {
    const auto& vi = *fed[i];
    std::string name = "input '" + vi.name().substr(0, 100) + "'";
    if (vi.type().value_case() != onnx::TypeProto::kTensorType)
      return Fail{
          kNotRunnable, "inputs",
          name + " is a " + value_kind(vi.type()) + " (onnxruntime-node feeds tensors only)", ""};
    int elem = vi.type().tensor_type().elem_type();
    if (exec::ort_type_name(elem).empty())
      return Fail{
          kNotRunnable, "inputs",
          name + " has type " + exec::onnx_type_name(elem) + " (not supported by onnxruntime-node)",
          ""};
    exec::RunnerInput in;
    in.name = vi.name();
    in.elem_type = elem;
    if (!o.inputs_dir.empty()) {
      fs::path file = fs::path(o.inputs_dir) / ("input_" + std::to_string(i) + ".pb");
      if (!fs::exists(file))
        return Fail{kNotRunnable, "inputs", "missing " + file.filename().string(), ""};
      try {
        exec::Tensor t = exec::read_tensor_pb(file.string(), o.max_elements);
        t.name = vi.name();
        if (t.elem_type != elem)
          return Fail{kNotRunnable, "inputs",
                      file.filename().string() + " has type " + exec::onnx_type_name(t.elem_type) +
                          ", the graph wants " + exec::onnx_type_name(elem),
                      ""};
        in.dims = t.dims;
        in.data = std::move(t);
      } catch (const std::exception& e) {
        return Fail{kNotRunnable, "inputs", e.what(), ""};
      }
      inputs->push_back(std::move(in));
      continue;
    }
    for (const auto& d : vi.type().tensor_type().shape().dim()) {
      if (d.has_dim_value()) {
        in.dims.push_back(d.dim_value());
      } else {
        auto it = o.dims.find(d.dim_param());
        in.dims.push_back(it != o.dims.end() ? it->second : 1);
      }
    }
    if (in.dims.size() > 64)
      return Fail{kNotRunnable, "inputs", name + " declares more than 64 dimensions", ""};
    for (auto d : in.dims)
      if (d < 0)
        return Fail{kNotRunnable, "inputs",
                    name + " declares a negative dimension " + dims_text(in.dims), ""};
    if (!exec::element_count_within(in.dims, o.max_elements))
      return Fail{kNotRunnable, "inputs",
                  name + " declares shape " + dims_text(in.dims) + ": more than " +
                      std::to_string(o.max_elements) + " elements (--max-elements)",
                  ""};
    in.seed = o.seed + i;
    inputs->push_back(std::move(in));
  }
  return std::nullopt;
}

// Reference outputs output_N.pb in the inputs dir, by graph output order (nullopt: none given).
std::optional<std::vector<exec::Tensor>> reference_outputs(const onnx::GraphProto& g,
                                                           const ReproOptions& o,
                                                           std::optional<Fail>* fail) {
  if (o.inputs_dir.empty() || !fs::exists(fs::path(o.inputs_dir) / "output_0.pb"))
    return std::nullopt;
  std::vector<exec::Tensor> refs;
  for (int i = 0; i < g.output_size(); ++i) {
    const auto& vi = g.output(i);
    if (vi.type().value_case() != onnx::TypeProto::kTensorType) {
      *fail = Fail{kNotRunnable, "inputs",
                   "output '" + vi.name().substr(0, 100) + "' is a " + value_kind(vi.type()) +
                       " (onnxruntime-node returns tensors only)",
                   ""};
      return std::nullopt;
    }
    fs::path file = fs::path(o.inputs_dir) / ("output_" + std::to_string(i) + ".pb");
    try {
      exec::Tensor t = exec::read_tensor_pb(file.string(), o.max_elements);
      t.name = vi.name();
      refs.push_back(std::move(t));
    } catch (const std::exception& e) {
      *fail = Fail{kNotRunnable, "inputs", std::string("reference output: ") + e.what(), ""};
      return std::nullopt;
    }
  }
  return refs;
}

// ONNX Runtime's "Could not find an implementation for Relu(14) node with name '/Relu'" as one
// group per operator, version and element type: the types (which the message does not name) come
// from the checker child's shape inference of the model. nullopt for any other error.
std::optional<std::string> missing_kernel_signature_of(exec::OrtRunner& runner,
                                                       const std::string& model_path,
                                                       const std::string& error) {
  auto kernel = exec::parse_missing_kernel(error);
  if (!kernel) return std::nullopt;
  auto r = runner.check(model_path, 60, kernel->node);
  json j = r.line ? json::parse(*r.line, nullptr, false) : json();
  if (j.is_object() && j.contains("kernel_types") && j["kernel_types"].is_array())
    for (const auto& t : j["kernel_types"])
      if (t.is_string() && kernel->types.size() < 4)
        kernel->types.push_back(first_lines(t.get<std::string>(), 20));
  return first_lines(exec::missing_kernel_signature(*kernel), exec::kMaxSignatureBytes);
}

void apply(RunVerdict& v, const Fail& f) {
  v.verdict = f.verdict;
  v.step = f.step;
  v.reason = first_lines(f.reason, 300);
  v.message = first_lines(f.error);
  if (!f.error.empty()) v.signature = exec::error_signature(f.error);
}

// Where the release's binding cannot hold a type at the model's boundary (float16, bfloat16),
// the request runs a copy wrapped with Casts (boundary_casts.h) and v.harness_note says so. A
// Fail when the copy cannot be made: a model with external data (the copy, in the scratch
// folder, would not find its data files).
std::optional<Fail> wrap_unheld_types(const exec::OrtRunner& runner, onnx::ModelProto& model,
                                      const std::string& model_path, exec::RunnerRequest& request,
                                      RunVerdict& v) {
  BoundaryCasts casts = plan_boundary_casts(model, runner.unheld_types());
  if (casts.empty()) return std::nullopt;
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(fs::absolute(model_path), ec).parent_path();
  auto data = external_data_locations(model, dir.string());
  if (!data || !data->empty())
    return Fail{kNotRunnable, "inputs",
                "ONNX Runtime " + v.ort_version + "'s Node binding holds no " + casts.types() +
                    " (the model's inputs or outputs), and a model with external data cannot "
                    "run wrapped with Casts",
                ""};
  wrap_boundary(model, casts);
  if (!model.SerializeToString(&request.model_bytes))
    return Fail{kNotRunnable, "inputs", "cannot serialize the model wrapped with Casts", ""};
  for (const auto& c : casts.inputs)
    for (auto& in : request.inputs)
      if (in.name == c.name) {
        in.name = c.wrapped;
        in.widen = true;
      }
  request.narrow.assign(static_cast<std::size_t>(model.graph().output_size()), {});
  for (const auto& c : casts.outputs) request.narrow[c.index] = {c.name, c.elem_type};
  v.harness_note = first_lines(casts.note(v.ort_version), 400);
  return std::nullopt;
}

void compare_outputs(RunVerdict& v, const exec::RunnerReply& reply) {
  v.checks = reply.checks;
  for (auto& c : v.checks) {
    c.output = first_lines(c.output, 200);
    c.result.problem = first_lines(c.result.problem, 300);
  }
  // The worst failed check: a shape/type/missing problem first, then the largest error.
  const exec::OutputCheck* worst_check = nullptr;
  auto rank = [](const exec::CompareResult& r) {
    return r.mismatches == 0 ? INFINITY : r.max_abs_error;
  };
  for (const auto& c : v.checks) {
    v.max_abs_error = std::max(v.max_abs_error.value_or(0), finite(c.result.max_abs_error));
    v.max_rel_error = std::max(v.max_rel_error.value_or(0), finite(c.result.max_rel_error));
    if (!c.result.match && (!worst_check || rank(c.result) > rank(worst_check->result)))
      worst_check = &c;
  }
  if (worst_check) {
    v.verdict = kWrongOutputReproduced;
    v.step = "compare";
    v.output_name = worst_check->output;
    v.signature = ("output " + worst_check->output + " vs " + worst_check->against + ": " +
                   worst_check->result.problem)
                      .substr(0, exec::kMaxSignatureBytes * 2);
  } else {
    v.verdict = kNotReproduced;
  }
}

}  // namespace

std::string runtime_lacks_support(const std::string& error) {
  static const RE2 kIr(R"(Unsupported model IR version: (\d+), max supported IR version: (\d+))");
  static const RE2 kOpset(R"([Oo]pset (\d+) is under development)");
  static const RE2 kOp(R"(No Op registered for ([A-Za-z0-9_.]+) with domain_version of (\d+))");
  std::string a, b;
  if (RE2::PartialMatch(error, kIr, &a, &b))
    return "predates the model's IR version " + a + " (it reads up to " + b + ")";
  if (RE2::PartialMatch(error, kOpset, &a)) return "predates the model's opset " + a;
  if (RE2::PartialMatch(error, kOp, &a, &b))
    return "does not know operator " + a + " at opset " + b;
  return "";
}

RunVerdict reproduce_model(exec::OrtRunner& runner, const std::string& model_path,
                           const ReproOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  RunVerdict v = model_run_verdict(model_path);
  v.onnx_version = onnx_library_version();
  auto done = [&]() -> RunVerdict {
    v.duration_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return v;
  };
  onnx::ModelProto model;
  if (auto f = check_structure(runner, model, model_path)) {
    apply(v, *f);
    return done();
  }
  exec::RunnerRequest request;
  request.model = model_path;
  request.tolerance = options.tolerance;
  request.max_elements = options.max_elements;
  request.timeout_seconds = options.timeout_seconds;
  request.save_outputs = options.save_outputs;
  if (auto f = prepare_inputs(model.graph(), options, &request.inputs)) {
    apply(v, *f);
    return done();
  }
  std::optional<Fail> ref_fail;
  request.references = reference_outputs(model.graph(), options, &ref_fail);
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
  if (auto f = wrap_unheld_types(runner, model, model_path, request, v)) {
    apply(v, *f);
    return done();
  }
  exec::RunnerReply reply = runner.run(request);
  if (!reply.ok) {
    if (reply.process && reply.level == "harness") {
      // The runner died making the inputs or comparing outputs (memory): not the model's crash.
      apply(v,
            Fail{kNotRunnable, reply.step,
                 "the runner died in step " + reply.step + ": " + reply.process->describe(), ""});
    } else if (reply.process) {
      // The runtime died: a signal, a timeout or memory exhaustion is the crash.
      v.verdict = kCrashReproduced;
      v.step = reply.step == "process" ? "session" : reply.step;
      const auto& p = *reply.process;
      if (p.kind == exec::ExitKind::kTimeout)
        v.signature = "timeout";
      else if (p.kind == exec::ExitKind::kMemoryExhausted)
        v.signature = "memory exhausted";
      else if (p.kind == exec::ExitKind::kSignaled)
        v.signature = "signal " + exec::signal_name(p.signal);
      else
        v.signature = "runner " + p.describe();
      v.message = first_lines(
          reply.error + "\n" +
          p.stderr_text.substr(p.stderr_text.size() > 400 ? p.stderr_text.size() - 400 : 0));
      v.signature = first_lines(v.signature, exec::kMaxSignatureBytes);
    } else if (std::string lacks = runtime_lacks_support(reply.error);
               reply.step == "session" && !lacks.empty()) {
      // A release older than the model (an IR version, opset or operator it predates): it
      // cannot judge the model, which is neither a crash nor a pass.
      apply(v, Fail{kNotRunnable, reply.step, "ONNX Runtime " + v.ort_version + " " + lacks,
                    reply.error});
      v.signature.clear();
    } else if ((reply.step == "session" || reply.step == "run") &&
               reply.error.find(kBoundaryCastPrefix) != std::string::npos) {
      // One of the Casts the harness added failed (no kernel for it on this release).
      apply(v, Fail{kNotRunnable, reply.step,
                    "ONNX Runtime " + v.ort_version +
                        " cannot run the boundary Casts: " + first_lines(reply.error, 300),
                    ""});
    } else if (reply.step == "session" || reply.step == "run") {
      apply(v, Fail{kCrashReproduced, reply.step, "", reply.error});
      if (auto kernel = missing_kernel_signature_of(runner, model_path, reply.error))
        v.signature = *kernel;
    } else {
      apply(v, Fail{kNotRunnable, reply.step, "runner: " + first_lines(reply.error, 300), ""});
    }
    return done();
  }
  compare_outputs(v, reply);
  v.outputs = std::move(reply.outputs);
  return done();
}

namespace {

// The locations found so far (each once, in the order met).
using Locations = std::vector<std::string>;

bool tensor_inside(const onnx::TensorProto& t, const fs::path& dir, Locations& found) {
  if (t.data_location() != onnx::TensorProto::EXTERNAL && t.external_data_size() == 0) return true;
  std::string location;
  for (const auto& kv : t.external_data())
    if (kv.key() == "location") location = kv.value();
  if (location.empty() || location.find('\0') != std::string::npos) return false;
  fs::path rel(location);
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory()) return false;
  if (!exec::path_within((dir / rel).string(), dir.string())) return false;
  if (std::find(found.begin(), found.end(), location) == found.end()) found.push_back(location);
  return true;
}

bool graph_inside(const onnx::GraphProto& g, const fs::path& dir, int depth, Locations& found);

bool nodes_inside(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes,
                  const fs::path& dir, int depth, Locations& found) {
  for (const auto& n : nodes) {
    for (const auto& a : n.attribute()) {
      if (a.has_t() && !tensor_inside(a.t(), dir, found)) return false;
      for (const auto& t : a.tensors())
        if (!tensor_inside(t, dir, found)) return false;
      if (a.has_sparse_tensor() && (!tensor_inside(a.sparse_tensor().values(), dir, found) ||
                                    !tensor_inside(a.sparse_tensor().indices(), dir, found)))
        return false;
      for (const auto& st : a.sparse_tensors())
        if (!tensor_inside(st.values(), dir, found) || !tensor_inside(st.indices(), dir, found))
          return false;
      if (a.has_g() && !graph_inside(a.g(), dir, depth + 1, found)) return false;
      for (const auto& sub : a.graphs())
        if (!graph_inside(sub, dir, depth + 1, found)) return false;
    }
  }
  return true;
}

bool graph_inside(const onnx::GraphProto& g, const fs::path& dir, int depth, Locations& found) {
  if (depth > 64) return false;  // protobuf's own recursion limit stops far deeper nesting
  for (const auto& t : g.initializer())
    if (!tensor_inside(t, dir, found)) return false;
  for (const auto& st : g.sparse_initializer())
    if (!tensor_inside(st.values(), dir, found) || !tensor_inside(st.indices(), dir, found))
      return false;
  return nodes_inside(g.node(), dir, depth, found);
}

}  // namespace

std::optional<std::vector<std::string>> external_data_locations(const onnx::ModelProto& model,
                                                                const std::string& model_dir) {
  fs::path dir(model_dir);
  Locations found;
  if (!graph_inside(model.graph(), dir, 0, found)) return std::nullopt;
  for (const auto& f : model.functions())
    if (!nodes_inside(f.node(), dir, 0, found)) return std::nullopt;
  for (const auto& ti : model.training_info())
    if (!graph_inside(ti.initialization(), dir, 0, found) ||
        !graph_inside(ti.algorithm(), dir, 0, found))
      return std::nullopt;
  return found;
}

bool external_data_inside(const onnx::ModelProto& model, const std::string& model_dir) {
  return external_data_locations(model, model_dir).has_value();
}

int check_model_main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], exec::kCheckModelCommand) != 0) return -1;
  if (argc != 2) {
    std::cerr << "usage: " << exec::kCheckModelCommand
              << " (internal: reads {\"model\": PATH} lines on stdin)\n";
    return 2;
  }
  auto reply = [](const json& j) { std::cout << json_text(j) << "\n" << std::flush; };
  // Step markers go to stderr at once: a crash leaves the step it was in as the last marker.
  auto mark = [](const char* step) { std::cerr << "convfail-step check " << step << std::endl; };
  auto fail = [&reply](const char* step, const std::string& error) {
    reply(json{{"fail", step}, {"error", error.substr(0, 4000)}});
  };
  std::string line;
  while (std::getline(std::cin, line)) {
    json req = json::parse(line, nullptr, false);
    if (!req.is_object() || !req.contains("model") || !req["model"].is_string()) {
      reply(json{{"fail", "protocol"}, {"error", "request is not {\"model\": PATH}"}});
      continue;
    }
    onnx::ModelProto model;
    {
      std::ifstream in(req["model"].get<std::string>(), std::ios::binary);
      if (!in) {
        fail("read", "cannot open the model file");
        continue;
      }
      if (!model.ParseFromIstream(&in)) {
        fail("checker", "model file does not parse as an ONNX ModelProto");
        continue;
      }
    }
    // libonnx resolves external data locations against the working folder: the model's.
    std::error_code ec;
    fs::current_path(fs::path(req["model"].get<std::string>()).parent_path(), ec);
    mark("checker");
    try {
      onnx::checker::check_model(model);
    } catch (const std::exception& e) {
      fail("checker", e.what());
      continue;
    }
    mark("shape_inference");
    try {
      onnx::ShapeInferenceOptions strict(/*check_type=*/true, /*error_mode=*/1);
      onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), strict);
    } catch (const std::exception& e) {
      fail("shape_inference", e.what());
      continue;
    }
    json ok = {{"ok", true}};
    if (req.contains("node") && req["node"].is_string())
      ok["kernel_types"] = kernel_types(model, req["node"].get<std::string>());
    reply(ok);
  }
  return 0;
}

}  // namespace convfail::repro
