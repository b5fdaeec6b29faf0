#include "repro/runtimes.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <re2/re2.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "exec/sandbox.h"

namespace convfail::repro {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kPackage = "onnxruntime-node";
constexpr const char* kFailedSuffix = ".failed";
constexpr const char* kPartialPrefix = ".partial-";

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string read_file(const fs::path& p, std::size_t max = 1 << 24) {
  std::ifstream in(p, std::ios::binary);
  std::string s(max, '\0');
  in.read(s.data(), static_cast<std::streamsize>(max));
  s.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return s;
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw UserError("cannot write " + p.string());
}

// The native library of this platform inside an installed onnxruntime-node: bin/napi-v*/linux/ARCH.
bool has_native_library(const fs::path& package) {
#if defined(__aarch64__)
  const char* arch = "arm64";
#else
  const char* arch = "x64";
#endif
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(package / "bin", ec)) {
    fs::path dir = e.path() / "linux" / arch;
    if (fs::exists(dir / "onnxruntime_binding.node", ec)) return true;
  }
  return false;
}

// The checks of a finished install in `dir`; "" when it is usable, else why not. *integrity gets
// onnxruntime-node's integrity from the lock.
std::string verify_install(const fs::path& dir, const std::string& version,
                           std::string* integrity) {
  json lock = json::parse(read_file(dir / "package-lock.json"), nullptr, false);
  if (!lock.is_object() || !lock.contains("packages") || !lock["packages"].is_object())
    return "npm wrote no package-lock.json";
  for (const auto& [path, entry] : lock["packages"].items()) {
    if (path.empty() || !entry.is_object() || entry.value("link", false)) continue;
    std::string sri = entry.value("integrity", "");
    if (sri.rfind("sha512-", 0) != 0) return "the lock has no sha512 integrity for " + path;
    if (path == std::string("node_modules/") + kPackage) *integrity = sri;
  }
  if (integrity->empty()) return "the lock does not list onnxruntime-node";
  fs::path package = dir / "node_modules" / kPackage;
  json meta = json::parse(read_file(package / "package.json"), nullptr, false);
  std::string got = meta.is_object() ? meta.value("version", "") : "";
  if (got != version) return "npm installed onnxruntime-node " + got + ", not " + version;
  if (!has_native_library(package))
    return "onnxruntime-node " + version +
           " ships no native library for linux (it downloads it in an install script, which "
           "convfail does not run)";
  return "";
}

// The environment npm runs with: the basics plus npm's own settings and proxies.
std::map<std::string, std::string> npm_env() {
  std::map<std::string, std::string> env;
  env["PATH"] = env_or("PATH", "/usr/local/bin:/usr/bin:/bin");
  env["HOME"] = env_or("HOME", "/tmp");
  env["LANG"] = "C.UTF-8";
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    std::string key = kv.substr(0, eq), lower = key;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    if (lower.rfind("npm_config_", 0) == 0 || lower == "http_proxy" || lower == "https_proxy" ||
        lower == "no_proxy" || key == "TMPDIR")
      env[key] = kv.substr(eq + 1);
  }
  return env;
}

exec::SandboxResult run_npm(const NpmOptions& o, std::vector<std::string> args,
                            const std::string& cwd, double timeout) {
  exec::SandboxSpec spec;
  spec.argv = {o.npm};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = npm_env();
  spec.cwd = cwd;
  spec.max_output_bytes = 1 << 20;
  spec.limits.memory_bytes = 0;  // node reserves much address space
  spec.limits.cpu_seconds = 0;
  spec.limits.file_size_bytes = 0;
  spec.limits.max_processes = 0;
  spec.limits.wall_seconds = timeout;
  return exec::run_trusted(spec);
}

std::string failure_line(const exec::SandboxResult& r, const std::string& what) {
  if (r.kind == exec::ExitKind::kTimeout) return what + ": npm " + r.describe();
  if (r.kind == exec::ExitKind::kSpawnFailed) return what + ": cannot run npm: " + r.error;
  return what + ": " + npm_error_line(r.stderr_text, "npm " + r.describe());
}

}  // namespace

std::string default_runtime_cache() {
  if (const char* own = std::getenv("CONVFAIL_ORT_CACHE"); own && *own) return own;
  std::string base = env_or("XDG_CACHE_HOME", "");
  if (base.empty()) base = (fs::path(env_or("HOME", "/tmp")) / ".cache").string();
  return (fs::path(base) / "convfail" / "ort").string();
}

bool valid_runtime_version(const std::string& version) {
  static const RE2 kVersion(R"(\d{1,4}\.\d{1,4}\.\d{1,4}(-[A-Za-z0-9][A-Za-z0-9.\-]{0,60})?)");
  return RE2::FullMatch(version, kVersion);
}

bool version_less(const std::string& a, const std::string& b) {
  auto parse = [](const std::string& v) {
    std::vector<long> nums;
    std::string tag;
    std::size_t dash = v.find('-');
    std::string core = v.substr(0, dash);
    if (dash != std::string::npos) tag = v.substr(dash + 1);
    std::stringstream ss(core);
    std::string part;
    while (std::getline(ss, part, '.')) nums.push_back(std::strtol(part.c_str(), nullptr, 10));
    return std::make_pair(nums, tag);
  };
  auto [na, ta] = parse(a);
  auto [nb, tb] = parse(b);
  if (na != nb) return na < nb;
  if (ta.empty() != tb.empty()) return !ta.empty();  // 1.22.0-rev before 1.22.0
  return ta < tb;
}

std::string npm_error_line(const std::string& stderr_text, const std::string& fallback) {
  std::string code, message;
  std::istringstream in(stderr_text);
  std::string line;
  static const RE2 kPrefix(R"(^npm (?:error|ERR!) ?)");
  static const RE2 kTag(R"(^[a-z0-9]+ +([A-Z0-9].*))");
  while (std::getline(in, line)) {
    if (!RE2::Replace(&line, kPrefix, "") && line.rfind("npm ", 0) == 0) continue;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.rfind("code ", 0) == 0) {
      if (code.empty()) code = line.substr(5);
      continue;
    }
    if (line.empty() || line.rfind("syscall ", 0) == 0 || line.rfind("errno ", 0) == 0 ||
        line.rfind("A complete log", 0) == 0 || line.rfind("Log files were", 0) == 0 ||
        line.find_first_not_of(' ') != 0)  // stack frames and indented detail
      continue;
    if (message.empty()) {
      std::string rest;
      message = RE2::FullMatch(line, kTag, &rest) ? rest : line;
    }
  }
  if (message.empty() && code.empty()) return fallback;
  std::string out = code.empty() ? message : message.empty() ? code : code + ": " + message;
  return out.substr(0, 400);
}

RuntimeCache::RuntimeCache(std::string dir, NpmOptions npm)
    : dir_(std::move(dir)), npm_(std::move(npm)) {}

std::optional<std::string> RuntimeCache::installed_dir(const std::string& version) const {
  if (!valid_runtime_version(version)) return std::nullopt;
  fs::path d = fs::path(dir_) / version;
  std::error_code ec;
  if (fs::is_directory(d / "node_modules" / kPackage, ec)) return d.string();
  return std::nullopt;
}

std::optional<std::string> RuntimeCache::failed_reason(const std::string& version) const {
  if (!valid_runtime_version(version)) return std::nullopt;
  fs::path f = fs::path(dir_) / (version + kFailedSuffix);
  std::error_code ec;
  if (!fs::exists(f, ec)) return std::nullopt;
  std::string s = read_file(f, 2000);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.empty() ? std::string("install failed") : s;
}

InstallResult RuntimeCache::install(const std::string& version, bool retry_failed) {
  if (!valid_runtime_version(version))
    throw UsageError("not an onnxruntime-node version: '" + version + "' (e.g. 1.21.0)");
  auto t0 = std::chrono::steady_clock::now();
  InstallResult r;
  auto done = [&] {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  };
  if (auto d = installed_dir(version)) {
    r.ok = r.already = true;
    r.dir = *d;
    return done();
  }
  fs::path failed = fs::path(dir_) / (version + kFailedSuffix);
  if (!retry_failed) {
    if (auto why = failed_reason(version)) {
      r.error = *why;
      return done();
    }
  }
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) {
    r.error = "cannot create " + dir_ + ": " + ec.message();
    return done();
  }
  std::random_device rd;
  fs::path tmp = fs::path(dir_) / (kPartialPrefix + version + "-" + std::to_string(rd()));
  fs::create_directories(tmp, ec);
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      if (!p.empty()) fs::remove_all(p, ec);
    }
  } cleanup{tmp};
  json package = {{"name", "convfail-ort-" + version},
                  {"private", true},
                  {"description", "onnxruntime-node " + version + " for convfail"},
                  {"dependencies", {{kPackage, version}}}};
  write_file(tmp / "package.json", package.dump(2) + "\n");
  exec::SandboxResult npm = run_npm(
      npm_,
      {"install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error",
       "--fetch-retries=1", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=3000"},
      tmp.string(), npm_.timeout_seconds);
  std::string integrity;
  if (!npm.ok())
    r.error = failure_line(npm, "npm install onnxruntime-node@" + version);
  else if (std::string why = verify_install(tmp, version, &integrity); !why.empty())
    r.error = why;
  if (!r.error.empty()) {
    // A version npm does not have or whose package cannot run here stays failed; a network
    // failure does not (the next bisect tries again).
    bool lasting = r.error.find("ETARGET") != std::string::npos ||
                   r.error.find("E404") != std::string::npos ||
                   r.error.find("native library") != std::string::npos;
    if (lasting) write_file(failed, r.error + "\n");
    return done();
  }
  write_file(tmp / ".convfail-integrity", integrity + "\n");
  fs::path dest = fs::path(dir_) / version;
  fs::rename(tmp, dest, ec);
  if (ec && !installed_dir(version)) {
    r.error = "cannot move the install to " + dest.string() + ": " + ec.message();
    return done();
  }
  if (!ec) cleanup.p.clear();
  fs::remove(failed, ec);
  r.ok = true;
  r.dir = dest.string();
  return done();
}

std::vector<InstalledRuntime> RuntimeCache::list() const {
  std::vector<InstalledRuntime> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    std::string name = e.path().filename().string();
    InstalledRuntime rt;
    if (name.size() > 7 && name.compare(name.size() - 7, 7, kFailedSuffix) == 0) {
      rt.version = name.substr(0, name.size() - 7);
      if (!valid_runtime_version(rt.version)) continue;
      rt.failed = true;
      rt.error = failed_reason(rt.version).value_or("");
    } else if (valid_runtime_version(name) && installed_dir(name)) {
      rt.version = name;
      rt.dir = e.path().string();
      rt.integrity = read_file(e.path() / ".convfail-integrity", 200);
      while (!rt.integrity.empty() && rt.integrity.back() == '\n') rt.integrity.pop_back();
    } else {
      continue;
    }
    out.push_back(std::move(rt));
  }
  std::sort(out.begin(), out.end(), [](const InstalledRuntime& a, const InstalledRuntime& b) {
    return version_less(a.version, b.version);
  });
  return out;
}

std::vector<std::string> RuntimeCache::available() const {
  exec::SandboxResult r =
      run_npm(npm_, {"view", kPackage, "versions", "--json", "--fetch-retries=1"}, "/",
              npm_.view_timeout_seconds);
  if (!r.ok()) throw UserError(failure_line(r, "npm view onnxruntime-node"));
  json j = json::parse(r.stdout_text, nullptr, false);
  std::vector<std::string> out;
  if (j.is_array()) {
    for (const auto& v : j)
      if (v.is_string() && valid_runtime_version(v.get<std::string>()) &&
          v.get<std::string>().find("-dev") == std::string::npos)
        out.push_back(v.get<std::string>());
  }
  if (out.empty()) throw UserError("npm view onnxruntime-node: no versions in its answer");
  std::sort(out.begin(), out.end(), version_less);
  return out;
}

std::vector<std::string> RuntimeCache::prune(const std::vector<std::string>& keep) {
  std::vector<std::string> removed;
  std::error_code ec;
  std::vector<fs::path> doomed;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    std::string name = e.path().filename().string();
    bool partial = name.rfind(kPartialPrefix, 0) == 0;
    bool failed_marker = name.size() > 7 && name.compare(name.size() - 7, 7, kFailedSuffix) == 0;
    bool version =
        valid_runtime_version(name) && std::find(keep.begin(), keep.end(), name) == keep.end();
    if (partial || failed_marker || version) doomed.push_back(e.path());
  }
  for (const auto& p : doomed) {
    fs::remove_all(p, ec);
    if (!ec) removed.push_back(p.filename().string());
  }
  std::sort(removed.begin(), removed.end());
  return removed;
}

}  // namespace convfail::repro
