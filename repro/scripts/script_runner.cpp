#include "repro/scripts/script_runner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>

#include <re2/re2.h>

#include "core/error.h"
#include "core/resources.h"
#include "core/text.h"
#include "exec/child_files.h"
#include "exec/python_child.h"
#include "repro/verdict_store.h"

namespace fs = std::filesystem;

namespace convfail::repro {
namespace {

// `rel` (from result.json) as a path under `outdir` when it names a regular file there: relative,
// without "..", no symbolic link on the way (exec/child_files). Otherwise "" (the file is not
// used).
std::string file_inside(const std::string& outdir, const std::string& rel) {
  fs::path r = fs::path(rel).lexically_normal();
  if (rel.empty() || r.is_absolute() || r.empty() || *r.begin() == "..") return "";
  return exec::is_child_file(outdir, r.string()) ? (fs::path(outdir) / r).string() : "";
}

std::string raw_str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string str(const nlohmann::json& j, const char* key) {
  return stored_text(raw_str(j, key), 2000);
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
  std::string type = raw_str(*it, "type"), message = raw_str(*it, "message");
  e.text = stored_text(message.empty() ? type : type + ": " + message, kMaxMessageBytes, true);
  std::string traceback = raw_str(*it, "traceback");
  if (traceback.find('\n') != std::string::npos)  // more than the header line
    e.traceback = stored_text(traceback, kMaxTracebackBytes, true);
  return e;
}

std::vector<std::string> files_under(const nlohmann::json& j, const char* key,
                                     const std::string& outdir) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& f : *it) {
    std::string path = f.is_string() ? file_inside(outdir, f.get<std::string>()) : "";
    if (path.empty()) return {};  // one unusable file makes the list unusable (order matters)
    out.push_back(path);
  }
  return out;
}

bool flag(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

std::string stored_text(const std::string& text, std::size_t max_bytes, bool keep_newlines) {
  // Tokens first (on a margin longer than any token, so none is cut in two), then the cut.
  std::string s = text.substr(0, max_bytes + 256);
  static const RE2 token(R"((gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}))");
  RE2::GlobalReplace(&s, token, "<token>");
  bool cut_off = s.size() > max_bytes || text.size() > max_bytes + 256;
  return convfail::terminal_safe(convfail::truncate_utf8(s, max_bytes), keep_newlines) +
         (cut_off ? "..." : "");
}

std::string default_harness_path() {
  return convfail::default_torch_harness();
}

void parse_harness_result(const nlohmann::json& r, const std::string& outdir, ScriptRun* run) {
  run->have_result = true;
  run->result = r;
  run->exception = exception_from(r, "exception");
  run->torch_version = stored_text(str(r, "torch_version"), 64);
  run->onnx_version = stored_text(str(r, "onnx_version"), 64);
  if (r.contains("export_calls") && r["export_calls"].is_number_integer())
    run->export_calls = r["export_calls"].get<int>();
  for (const char* key : {"blocked", "shims"}) {
    auto it = r.find(key);
    if (it == r.end() || !it->is_array()) continue;
    for (const auto& b : *it)
      if (b.is_string() && (key[0] == 'b' ? run->blocked : run->shims).size() < 50)
        (key[0] == 'b' ? run->blocked : run->shims)
            .push_back(stored_text(b.get<std::string>(), 300));
  }
  auto it = r.find("exports");
  if (it == r.end() || !it->is_array()) return;
  for (const auto& e : *it) {
    if (!e.is_object()) continue;
    HarnessExport x;
    if (e.contains("index") && e["index"].is_number_integer()) x.index = e["index"].get<int>();
    std::string model = str(e, "model");
    if (!model.empty()) x.model_path = file_inside(outdir, model);
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
  // The script goes into a folder the child sees read-only, written before it starts; the
  // child's own scratch folder is the only writable place and is gone when this returns.
  exec::ScratchDir inbox("script-in"), child("script");
  const fs::path script = fs::path(inbox.path()) / "script.py";
  std::ofstream(script, std::ios::binary) << code;
  const fs::path root = child.path();
  const fs::path work = root / "work", out = root / "out";
  fs::create_directories(work);
  fs::create_directories(out);

  exec::SandboxSpec spec =
      exec::python_worker_spec(harness, {script.string(), out.string(), "--workdir", work.string()},
                               root.string(), {inbox.path()});
  if (!options.guard) spec.argv.push_back("--no-guard");
  std::string stubs;
  for (const auto& m : options.stub_modules) stubs += (stubs.empty() ? "" : ",") + m;
  if (!stubs.empty()) spec.argv.insert(spec.argv.end(), {"--stub-modules", stubs});
  spec.argv[0] = options.python;
  spec.cwd = work.string();
  spec.limits.memory_bytes = options.memory_bytes;
  spec.limits.cpu_seconds = static_cast<std::uint64_t>(options.timeout_seconds * 2 + 10);
  spec.limits.file_size_bytes = options.file_size_bytes;
  spec.limits.wall_seconds = options.timeout_seconds;

  run.sandbox = exec::run_sandboxed(spec);
  run.isolation = run.sandbox.isolation;
  run.network_isolated = run.filesystem_isolated = run.isolation == exec::kIsolationSandbox;
  // What the harness left, taken out of the child's folder the one safe way (regular files only,
  // never through a link, capped) into a folder no child ever saw; everything is read there.
  run.scratch = std::make_shared<exec::ScratchDir>("script-out");
  const std::string held = (fs::path(run.scratch->path()) / "out").string();
  exec::ChildFileLimits limits;
  limits.max_file_bytes = options.file_size_bytes;
  exec::CopiedTree copied;
  std::string why;
  if (!exec::copy_child_tree(root.string(), "out", held, limits, &copied, &why)) {
    run.phase = stored_text("output not taken: " + why, 200);
    return run;
  }
  run.phase = stored_text(exec::read_child_file(held, "phase", 64).value_or(""), 64);
  auto text = exec::read_child_file(held, "result.json", 64 << 20);
  if (text && !text->empty()) {
    try {
      parse_harness_result(nlohmann::json::parse(*text), held, &run);
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
    exec::SandboxSpec spec;
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
    exec::SandboxResult r = exec::run_sandboxed(spec);
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
