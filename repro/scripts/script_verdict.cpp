#include "repro/scripts/script_verdict.h"

#include <algorithm>

#include <re2/re2.h>

#include "exec/signature.h"
#include "repro/scripts/script_extract.h"
#include "repro/verdict_store.h"
#include "repro/verdicts.h"

namespace convfail::repro {
namespace {

RunVerdict not_runnable(const std::string& step, const std::string& reason) {
  RunVerdict v;
  v.verdict = kNotRunnable;
  v.step = step;
  v.reason = reason;
  return v;
}

RunVerdict crash(const std::string& step, const std::string& signature) {
  RunVerdict v;
  v.verdict = kCrashReproduced;
  v.step = step;
  v.signature = signature;
  return v;
}

nlohmann::json exception_json(const HarnessException& e) {
  return {{"type", e.type}, {"message", e.message}, {"frame", e.frame}, {"where", e.where}};
}

// The kind of refusal, without the path or address that follows the colon or parenthesis.
std::string blocked_kind(const std::string& what) {
  std::size_t cut = what.find_first_of(":(");
  std::string kind = what.substr(0, cut);
  while (!kind.empty() && kind.back() == ' ') kind.pop_back();
  return kind;
}

bool is_network_error(const HarnessException& e) {
  static const RE2 net(
      R"(URLError|ConnectionError|ConnectionRefused|gaierror|timeout|HTTPError|SSLError|MaxRetryError|ProxyError)");
  return RE2::PartialMatch(e.type, net) ||
         e.message.find("Network is unreachable") != std::string::npos ||
         e.message.find("Temporary failure in name resolution") != std::string::npos;
}

nlohmann::json run_details(const ScriptRun& run) {
  nlohmann::json d = {{"harness_exit", run.sandbox.describe()},
                      {"phase", run.phase},
                      {"export_calls", run.export_calls},
                      {"isolation", run.isolation},
                      {"network_isolated", run.network_isolated},
                      {"filesystem_isolated", run.filesystem_isolated},
                      {"wall_ms", run.sandbox.wall_ms}};
  if (!run.blocked.empty()) d["blocked"] = run.blocked;
  if (!run.shims.empty()) d["shims"] = run.shims;
  if (run.exception) d["exception"] = exception_json(*run.exception);
  if (!run.torch_version.empty()) d["torch_version"] = run.torch_version;
  return d;
}

// Every string in `j` through stored_text (arrays cut to 50 entries): details hold what the
// script, its exception and the exported models said.
void scrub_json(nlohmann::json& j) {
  if (j.is_string()) {
    j = stored_text(j.get<std::string>(), 2000);
  } else if (j.is_array()) {
    if (j.size() > 50) j.erase(j.begin() + 50, j.end());
    for (auto& x : j) scrub_json(x);
  } else if (j.is_object()) {
    for (auto& [k, x] : j.items()) scrub_json(x);
  }
}

// The verdict with the exception's own words attached.
RunVerdict with_exception(RunVerdict v, const HarnessException& e) {
  v.message = e.text;
  v.traceback = e.traceback;
  return v;
}

// The last `n` lines of `text` up to its last non-blank character (the harness's last words).
std::string last_lines(const std::string& text, int n) {
  std::size_t end = text.find_last_not_of("\n\r ");
  if (end == std::string::npos) return "";
  std::size_t start = end;
  for (int seen = 0; start > 0; --start)
    if (text[start - 1] == '\n' && ++seen == n) break;
  return text.substr(start, end - start + 1);
}

std::string last_line(const std::string& text) {
  std::size_t end = text.find_last_not_of("\n\r ");
  if (end == std::string::npos) return "";
  std::size_t start = text.rfind('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  return text.substr(start, std::min<std::size_t>(end - start + 1, 300));
}

// Phase 1: the harness did not report (could not start, was killed, crashed, died without a
// result); the phase file says where it was.
std::optional<RunVerdict> harness_failure(const ScriptRun& run) {
  const exec::SandboxResult& sb = run.sandbox;
  if (sb.kind == exec::ExitKind::kSpawnFailed)
    return not_runnable("harness", "could not start the harness: " + sb.error);
  if (sb.kind == exec::ExitKind::kExited && run.have_result) return std::nullopt;
  bool exited = sb.kind == exec::ExitKind::kExited;
  bool timeout = sb.kind == exec::ExitKind::kTimeout;
  // Its last words on stderr (Python's "Fatal Python error: ..." and stack, a MemoryError).
  std::string last_words =
      timeout ? "" : stored_text(last_lines(sb.stderr_text, 12), kMaxMessageBytes, true);
  if (run.phase == "export" && !exited) {
    RunVerdict c = crash("export", timeout ? "timeout" : sb.describe());
    c.message = last_words;
    return c;
  }
  std::string where = run.phase == "eager" ? "eager" : "script";
  if (timeout) return not_runnable("timeout", "timeout in " + where);
  std::string what = exited ? "harness failed (" + sb.describe() + "): " + last_line(sb.stderr_text)
                            : sb.describe();
  RunVerdict nr = not_runnable(where, what);
  nr.message = last_words;
  return nr;
}

// An exception raised before the export: why the script could not get to a model.
RunVerdict before_export_verdict(const ScriptRun& run, const HarnessException& e) {
  if (e.type == "ModuleNotFoundError" && !e.module.empty())
    return with_exception(not_runnable("script", "missing module: " + e.module), e);
  if (e.type == "StubbedModuleError")  // needed before the export, not just to compare
    return with_exception(
        not_runnable("script", "missing module: " + e.message.substr(0, e.message.find(' '))), e);
  if (!run.blocked.empty())
    return with_exception(not_runnable("script", "blocked: " + blocked_kind(run.blocked.front())),
                          e);
  if (is_network_error(e))
    return with_exception(not_runnable("script", "needs network: " + e.type), e);
  auto nr = not_runnable("script", "script failed before export: " + e.type);
  nr.signature = exec::exception_signature(e.type, e.message);
  return with_exception(nr, e);
}

// Phase 2: the script's exception, by the frame it was raised in. After the export the script's
// own follow-up failed: the exported models decide (nullopt).
std::optional<RunVerdict> exception_verdict(const ScriptRun& run) {
  if (!run.exception) return std::nullopt;
  const HarnessException& e = *run.exception;
  if (e.frame == "syntax")
    return not_runnable(
        "script",
        "syntax error" + (e.line ? " (line " + std::to_string(e.line) + ")" : std::string()));
  if (e.frame == "harness")
    return with_exception(not_runnable("harness", "harness error: " + e.type), e);
  if (e.frame == "export")
    return with_exception(crash("export", exec::exception_signature(e.type, e.message)), e);
  if (e.frame == "before_export") return before_export_verdict(run, e);
  return std::nullopt;
}

// Phase 3: an export that raised though the script caught it, or no export at all.
std::optional<RunVerdict> export_verdict(const ScriptRun& run) {
  for (const auto& x : run.exports)
    if (x.error)
      return with_exception(
          crash("export", exec::exception_signature(x.error->type, x.error->message)), *x.error);
  if (run.export_calls == 0) return not_runnable("script", "no export call");
  return std::nullopt;
}

// What re-executing the exported models gave, gathered for the decision.
struct ExportedModels {
  std::optional<RunVerdict> crash, wrong, unrunnable;  // the first crash, the worst wrong output
  int evaluated = 0, agreeing = 0, comparable = 0;
  std::optional<double> agree_abs, agree_rel;  // the largest differences of agreeing models
  std::string ort_version, onnx_version;
  nlohmann::json models = nlohmann::json::array();
};

std::optional<double> larger(std::optional<double> a, std::optional<double> b) {
  return !a ? b : !b ? a : std::max(*a, *b);
}

// Phase 4a: each exported model re-executed once.
ExportedModels evaluate_exports(const ScriptRun& run, const ModelEvaluator& evaluate) {
  ExportedModels e;
  for (const auto& x : run.exports) {
    if (x.model_path.empty()) continue;
    RunVerdict m = evaluate(x);
    ++e.evaluated;
    if (x.comparable()) ++e.comparable;
    e.models.push_back({{"index", x.index},
                        {"verdict", m.verdict},
                        {"step", m.step},
                        {"comparable", x.comparable()},
                        {"details", m.details}});
    if (m.verdict == kCrashReproduced && !e.crash) e.crash = m;
    if (m.verdict == kWrongOutputReproduced &&
        (!e.wrong || !e.wrong->max_abs_error ||
         (m.max_abs_error && *m.max_abs_error > *e.wrong->max_abs_error)))
      e.wrong = m;
    if (m.verdict == kNotRunnable && !e.unrunnable) e.unrunnable = m;
    if (m.verdict == kNotReproduced) {
      ++e.agreeing;
      e.agree_abs = larger(e.agree_abs, m.max_abs_error);
      e.agree_rel = larger(e.agree_rel, m.max_rel_error);
    }
    if (!m.ort_version.empty()) e.ort_version = m.ort_version;
    if (!m.onnx_version.empty()) e.onnx_version = m.onnx_version;
  }
  return e;
}

// Phase 4b: a crash outranks a wrong output; models that agree (with eager or, without a
// reference, with themselves optimised) are not_reproduced unless eager itself failed.
RunVerdict exported_models_verdict(const ScriptRun& run, const ModelEvaluator& evaluate) {
  ExportedModels e = evaluate_exports(run, evaluate);
  if (e.evaluated == 0) return not_runnable("export", "export wrote no file");
  RunVerdict out;
  if (const RunVerdict* pick = e.crash ? &*e.crash : e.wrong ? &*e.wrong : nullptr) {
    out.verdict = pick->verdict;
    out.step = pick->step;
    out.signature = pick->signature;
    out.message = stored_text(pick->message, kMaxMessageBytes, true);
    out.output_name = pick->output_name;
    out.max_abs_error = pick->max_abs_error;
    out.max_rel_error = pick->max_rel_error;
  } else if (e.agreeing > 0) {
    out.verdict = kNotReproduced;
    out.max_abs_error = e.agree_abs;  // the largest difference seen, within tolerance
    out.max_rel_error = e.agree_rel;
    const HarnessException* eager = nullptr;
    for (const auto& x : run.exports)
      if (x.eager_error) eager = &*x.eager_error;
    if (e.comparable == 0 && eager)
      return with_exception(not_runnable("eager", "eager run failed: " + eager->type), *eager);
  } else {
    out = not_runnable(e.unrunnable ? e.unrunnable->step : "run",
                       e.unrunnable ? e.unrunnable->reason : "model not evaluated");
    if (e.unrunnable) out.message = stored_text(e.unrunnable->message, kMaxMessageBytes, true);
  }
  out.ort_version = e.ort_version;
  out.onnx_version = e.onnx_version;
  out.details["models"] = e.models;
  out.details["comparable_exports"] = e.comparable;
  return out;
}

// Last: the run's details first, the decision's (models, ...) over them; nothing the run
// produced is stored verbatim.
RunVerdict with_run_details(RunVerdict v, const ScriptRun& run) {
  nlohmann::json d = run_details(run);
  for (auto& [k, val] : v.details.items()) d[k] = val;
  v.details = d;
  if (v.onnx_version.empty()) v.onnx_version = run.onnx_version;
  scrub_json(v.details);
  for (std::string* s : {&v.signature, &v.reason, &v.output_name, &v.ort_version, &v.onnx_version})
    *s = stored_text(*s, 500);
  return v;
}

}  // namespace

std::optional<RunVerdict> static_check(
    const std::string& code,
    const std::function<std::vector<std::string>(const std::vector<std::string>&)>& missing) {
  if (code.find_first_not_of(" \t\r\n") == std::string::npos)
    return not_runnable("static", "no code");
  auto absent = missing(imported_modules(code));
  if (!absent.empty()) {
    std::string names;
    for (const auto& m : absent) names += (names.empty() ? "" : ", ") + m;
    auto v = not_runnable("static", "missing module: " + names);
    v.details["missing_modules"] = absent;
    return v;
  }
  if (!has_export_call(code)) return not_runnable("static", "no export call");
  return std::nullopt;
}

RunVerdict decide_script_verdict(const ScriptRun& run, const ModelEvaluator& evaluate) {
  std::optional<RunVerdict> v = harness_failure(run);
  if (!v) v = exception_verdict(run);
  if (!v) v = export_verdict(run);
  if (!v) v = exported_models_verdict(run, evaluate);
  return with_run_details(std::move(*v), run);
}

}  // namespace convfail::repro
