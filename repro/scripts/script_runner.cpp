#include "repro/scripts/script_runner.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/resources.h"

namespace fs = std::filesystem;

namespace convfail::repro {
namespace {

std::string read_file(const fs::path& p, std::size_t max_bytes = 64 << 20) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return "";
  std::string s;
  s.resize(max_bytes);
  in.read(s.data(), static_cast<std::streamsize>(max_bytes));
  s.resize(static_cast<std::size_t>(in.gcount()));
  return s;
}

std::string str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::optional<HarnessException> exception_from(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_object()) return std::nullopt;
  HarnessException e;
  e.type = str(*it, "type");
  e.message = str(*it, "message");
  e.frame = str(*it, "frame");
  e.module = str(*it, "module");
  e.where = str(*it, "where");
  if (it->contains("line") && (*it)["line"].is_number_integer()) e.line = (*it)["line"].get<int>();
  return e;
}

std::vector<std::string> files_under(const nlohmann::json& j, const char* key,
                                     const std::string& outdir) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& f : *it)
    if (f.is_string()) out.push_back((fs::path(outdir) / f.get<std::string>()).string());
  return out;
}

bool flag(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

ScratchDir::ScratchDir() {
  std::random_device rd;
  fs::path p = fs::temp_directory_path() /
               ("convfail-script-" + std::to_string(rd()) + "-" + std::to_string(rd()));
  fs::create_directories(p);
  path_ = p.string();
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string default_harness_path() {
  return convfail::default_torch_harness();
}

void parse_harness_result(const nlohmann::json& r, const std::string& outdir, ScriptRun* run) {
  run->have_result = true;
  run->result = r;
  run->exception = exception_from(r, "exception");
  run->torch_version = str(r, "torch_version");
  run->onnx_version = str(r, "onnx_version");
  if (r.contains("export_calls") && r["export_calls"].is_number_integer())
    run->export_calls = r["export_calls"].get<int>();
  for (const char* key : {"blocked", "shims"}) {
    auto it = r.find(key);
    if (it == r.end() || !it->is_array()) continue;
    for (const auto& b : *it)
      if (b.is_string())
        (key[0] == 'b' ? run->blocked : run->shims).push_back(b.get<std::string>());
  }
  auto it = r.find("exports");
  if (it == r.end() || !it->is_array()) return;
  for (const auto& e : *it) {
    if (!e.is_object()) continue;
    HarnessExport x;
    if (e.contains("index") && e["index"].is_number_integer()) x.index = e["index"].get<int>();
    std::string model = str(e, "model");
    if (!model.empty()) x.model_path = (fs::path(outdir) / model).string();
    x.inputs = files_under(e, "inputs", outdir);
    x.eager_outputs = files_under(e, "eager_outputs", outdir);
    x.inputs_match_graph = flag(e, "inputs_match_graph");
    x.outputs_match_graph = flag(e, "outputs_match_graph");
    x.error = exception_from(e, "error");
    x.eager_error = exception_from(e, "eager_error");
    if (e.contains("opset") && e["opset"].is_number_integer()) x.opset = e["opset"].get<int>();
    x.note = str(e, "note");
    run->exports.push_back(std::move(x));
  }
}

ScriptRun run_script(const std::string& code, const ScriptRunOptions& options) {
  std::string harness = options.harness.empty() ? default_harness_path() : options.harness;
  if (!fs::is_regular_file(harness))
    throw UserError("PyTorch harness not found: " + harness + " (set CONVFAIL_HARNESS)");

  ScriptRun run;
  run.scratch = std::make_shared<ScratchDir>();
  const fs::path root = run.scratch->path();
  const fs::path work = root / "work", out = root / "out", tmp = root / "work" / ".tmp";
  fs::create_directories(tmp);
  fs::create_directories(out);
  std::ofstream(root / "script.py", std::ios::binary) << code;

  SandboxSpec spec;
  spec.argv = {options.python, harness,     (root / "script.py").string(),
               out.string(),   "--workdir", work.string()};
  if (!options.guard) spec.argv.push_back("--no-guard");
  std::string stubs;
  for (const auto& m : options.stub_modules) stubs += (stubs.empty() ? "" : ",") + m;
  if (!stubs.empty()) spec.argv.insert(spec.argv.end(), {"--stub-modules", stubs});
  // A closed environment: nothing of convfail's (no token), caches and temp files inside the
  // scratch directory, proxies pointing at a closed loopback port in case `unshare -n` is missing.
  const std::string nowhere = "http://127.0.0.1:9";
  spec.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
              {"HOME", work.string()},
              {"TMPDIR", tmp.string()},
              {"LANG", "C.UTF-8"},
              {"PYTHONDONTWRITEBYTECODE", "1"},
              {"PYTHONNOUSERSITE", "1"},
              {"PYTHONHASHSEED", "0"},
              {"OMP_NUM_THREADS", "1"},
              {"MKL_NUM_THREADS", "1"},
              {"TORCH_HOME", (work / ".torch").string()},
              {"http_proxy", nowhere},
              {"https_proxy", nowhere},
              {"HTTP_PROXY", nowhere},
              {"HTTPS_PROXY", nowhere},
              {"ALL_PROXY", nowhere},
              {"no_proxy", ""}};
  spec.cwd = work.string();
  spec.limits.memory_bytes = options.memory_bytes;
  spec.limits.cpu_seconds = static_cast<std::uint64_t>(options.timeout_seconds * 2 + 10);
  spec.limits.file_size_bytes = options.file_size_bytes;
  spec.limits.wall_seconds = options.timeout_seconds;
  spec.limits.no_network = true;
  spec.limits.writable_dir = root.string();  // the harness's audit hook is the second line
  run.network_isolated = network_isolation_available();
  run.filesystem_isolated = filesystem_isolation_available();

  run.sandbox = run_sandboxed(spec);
  run.phase = read_file(out / "phase", 64);
  std::string text = read_file(out / "result.json");
  if (!text.empty()) {
    try {
      parse_harness_result(nlohmann::json::parse(text), out.string(), &run);
    } catch (const nlohmann::json::exception&) {
      run.have_result = false;  // truncated by a kill or the file size limit
    }
  }
  return run;
}

std::vector<std::string> missing_modules(const std::vector<std::string>& modules,
                                         const std::string& python) {
  static std::mutex mu;
  static std::map<std::string, std::map<std::string, bool>> cache;  // python -> module -> found
  std::lock_guard<std::mutex> lock(mu);
  auto& known = cache[python];
  std::vector<std::string> ask;
  for (const auto& m : modules)
    if (!known.count(m)) ask.push_back(m);
  if (!ask.empty()) {
    SandboxSpec spec;
    spec.argv = {python, "-c",
                 "import importlib.util, sys\n"
                 "for n in sys.argv[1:]:\n"
                 "    try:\n"
                 "        ok = importlib.util.find_spec(n) is not None\n"
                 "    except Exception:\n"
                 "        ok = False\n"
                 "    print(n, int(ok))\n"};
    spec.argv.insert(spec.argv.end(), ask.begin(), ask.end());
    spec.env = {
        {"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"PYTHONNOUSERSITE", "1"}, {"LANG", "C.UTF-8"}};
    spec.limits.wall_seconds = 60;
    spec.limits.no_network = false;
    SandboxResult r = run_sandboxed(spec);
    if (!r.ok())
      throw UserError("cannot query Python modules with " + python + ": " + r.describe());
    std::istringstream in(r.stdout_text);
    std::string name;
    int found;
    while (in >> name >> found) known[name] = found != 0;
  }
  std::vector<std::string> missing;
  for (const auto& m : modules) {
    auto it = known.find(m);
    if (it != known.end() && !it->second) missing.push_back(m);
  }
  return missing;
}

}  // namespace convfail::repro
