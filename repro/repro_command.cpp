#include "repro/repro_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include <re2/re2.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/issue_ref.h"
#include "core/json_util.h"
#include "core/text.h"
#include "exec/sandbox.h"
#include "repro/runtimes.h"
#include "repro/suite.h"
#include "repro/verdict_store.h"
#include "repro/verdicts.h"

namespace convfail::repro {

namespace fs = std::filesystem;
using nlohmann::json;

std::map<std::string, std::int64_t> parse_dims(const std::vector<std::string>& dims) {
  std::map<std::string, std::int64_t> out;
  static const RE2 kDim(R"(([^=]+)=(\d{1,9}))");
  for (const auto& d : dims) {
    std::string name, value;
    if (!RE2::FullMatch(d, kDim, &name, &value))
      throw UsageError("--dim wants NAME=V (V a positive integer), got '" + d + "'");
    out[name] = std::stoll(value);
  }
  return out;
}

namespace {

// One printed line; everything in it may come from outside (paths, model names, errors).
std::string text_line(const std::string& label, const RunVerdict& v) {
  std::string s = label + "  " + v.verdict;
  if (!v.step.empty() && v.verdict != kNotReproduced) s += " [" + v.step + "]";
  if (!v.reason.empty()) s += "  " + v.reason;
  if (!v.signature.empty()) s += "  " + v.signature;
  if (v.verdict == kWrongOutputReproduced || v.verdict == kNotReproduced) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "  max_abs=%.3g max_rel=%.3g", v.max_abs_error.value_or(0),
                  v.max_rel_error.value_or(0));
    s += buf;
  }
  return terminal_safe(s);
}

bool is_onnx_name(const fs::path& p) {
  return p.extension() == ".onnx";
}

}  // namespace

std::vector<ModelTarget> issue_model_targets(Db& db, std::int64_t issue_id) {
  std::vector<ModelTarget> out;
  auto st = db.prepare(
      "SELECT id, kind, url, local_path FROM artifacts WHERE issue_id = ? AND fetch_status = 'ok'"
      " AND local_path IS NOT NULL AND kind IN ('model', 'archive') ORDER BY id");
  st.bind(1, issue_id);
  while (st.step()) {
    std::int64_t id = st.int64(0);
    std::string kind = st.text(1), url = st.text(2), path = st.text(3);
    if (kind == "model") {
      fs::path name = fs::path(url.substr(0, url.find('?'))).filename();
      if (is_onnx_name(name))
        out.push_back({path, "", "", id});
      else
        out.push_back(
            {"", "", "not an ONNX model (" + name.string() + "): conversion is not re-run", id});
      continue;
    }
    fs::path unpacked = path + ".d";
    bool any = false;
    if (fs::is_directory(unpacked)) {
      for (const auto& e : fs::recursive_directory_iterator(unpacked)) {
        if (!e.is_regular_file() || !is_onnx_name(e.path())) continue;
        fs::path data = e.path().parent_path() / "test_data_set_0";
        out.push_back({e.path().string(), fs::is_directory(data) ? data.string() : "", "", id});
        any = true;
      }
    }
    if (!any) out.push_back({"", "", "archive holds no .onnx model", id});
  }
  return out;
}

std::string pinned_runtime_version() {
  std::ifstream in(fs::path(exec::default_runner_dir()) / "node_modules" / "onnxruntime-node" /
                   "package.json");
  json j = json::parse(in, nullptr, false);
  return j.is_object() && j.contains("version") && j["version"].is_string()
             ? j["version"].get<std::string>()
             : std::string();
}

exec::RunnerOptions runner_options_for(const std::string& ort_version) {
  exec::RunnerOptions ro;
  if (ort_version.empty()) return ro;
  if (!valid_runtime_version(ort_version))
    throw UsageError("--ort wants an onnxruntime-node version such as 1.21.0, got '" + ort_version +
                     "'");
  RuntimeCache cache;
  auto dir = cache.installed_dir(ort_version);
  // The pinned release is that version too: no install needed (a campaign records the version
  // it ran on, and its later steps ask for it by name).
  if (!dir && pinned_runtime_version() == ort_version) return ro;
  if (!dir)
    throw UserError("onnxruntime-node " + ort_version + " is not installed in " + cache.dir() +
                    " (convfail runtimes install " + ort_version + ")");
  ro.ort_dir = *dir;
  return ro;
}

void run_reproduce(ReproduceRequest req, Db* db, std::ostream& out) {
  req.options.dims = parse_dims(req.dims);
  if (req.options.tolerance.atol < 0 || req.options.tolerance.rtol < 0)
    throw UsageError("--atol and --rtol must not be negative");
  if (req.options.max_elements < 1 || req.options.max_elements > kMaxMaxElements)
    throw UsageError("--max-elements must be between 1 and " + std::to_string(kMaxMaxElements));
  exec::RunnerOptions ro = runner_options_for(req.ort_version);
  ro.limits.memory_bytes = req.memory_mb << 20;
  ro.limits.wall_seconds = req.options.timeout_seconds;
  // One warm runner for the whole suite: it may read the suite's folder.
  if (!req.suite.empty()) ro.model_roots = {req.suite};
  exec::OrtRunner runner(ro);

  ResultOutput output(req.format, out);
  std::map<std::string, int> verdicts;  // verdict -> count, for the totals of issue/--model runs
  auto emit = [&](const std::string& label, const RunVerdict& v, std::optional<std::int64_t> issue,
                  const std::string& issue_ref) {
    ++verdicts[v.verdict];
    json j = model_run_json(v);
    if (issue) j["issue"] = issue_ref;
    output.result(output.is_text() ? text_line(label, v) : std::string(), std::move(j),
                  output.is_text() ? message_lines(v.message, "") : std::vector<std::string>());
  };
  auto verdict_totals = [&] {
    int total = 0;
    for (const auto& [verdict, count] : verdicts) total += count;
    json t = {{"total", total}};
    for (const auto& [verdict, count] : verdicts) t[verdict] = count;
    return t;
  };

  if (!req.suite.empty()) {
    auto cases = list_suite_cases(req.suite);
    SuiteTotals totals;
    std::map<std::string, int> fail_signatures;
    int n = 0;
    for (const auto& c : cases) {
      std::string name = fs::path(c).filename().string();
      if (!req.filter.empty() && name.find(req.filter) == std::string::npos) continue;
      if (req.limit && n >= req.limit) break;
      ++n;
      if (req.progress)
        std::cerr << "\r[" << n << "/" << cases.size() << "] " << terminal_safe(name) << "\x1b[K"
                  << std::flush;
      RunVerdict v = reproduce_test_case(runner, c, req.options);
      std::string outcome = suite_outcome(v);
      totals.add(outcome);
      if (outcome != "pass")
        ++fail_signatures[outcome + " [" + v.step + "] " +
                          (v.reason.empty() ? v.signature : v.reason)];
      json j = model_run_json(v);
      j["case"] = name;
      j["outcome"] = outcome;
      // A suite has many cases: the first line of each failure's message only.
      output.result(
          output.is_text() ? terminal_safe(outcome) + "  " + text_line(name, v) : std::string(),
          std::move(j),
          output.is_text() && outcome != "pass" ? message_lines(v.message, "", 1)
                                                : std::vector<std::string>());
    }
    if (req.progress) std::cerr << "\r\x1b[K";
    output.finish(json{{"total", totals.total},
                       {"pass", totals.pass},
                       {"fail", totals.fail},
                       {kNotRunnable, totals.not_runnable},
                       {"runner_starts", runner.process_starts()},
                       {"checker_starts", runner.checker_starts()}});
    if (output.is_text()) {
      out << "\ntotal " << totals.total << ": pass " << totals.pass << ", fail " << totals.fail
          << ", not_runnable " << totals.not_runnable << "\n";
      for (const auto& [sig, count] : fail_signatures)
        out << "  " << count << " x " << terminal_safe(sig) << "\n";
    }
    return;
  }

  if (!db) throw UserError("no database");
  if (!req.model.empty()) {
    req.options.inputs_dir = req.inputs_dir;
    RunVerdict v = reproduce_model(runner, req.model, req.options);
    Transaction tx(*db);
    store_run(*db, v, RunOrigin{});
    tx.commit();
    emit(req.model, v, std::nullopt, "");
    output.finish(verdict_totals());
    return;
  }

  // Issue mode and --all.
  std::vector<std::pair<std::int64_t, std::string>> issues;
  if (req.all) {
    auto st = db->prepare(
        "SELECT DISTINCT i.id, r.full_name || '#' || i.number FROM artifacts a JOIN issues i ON"
        " i.id = a.issue_id JOIN repositories r ON r.id = i.repo_id WHERE a.fetch_status = 'ok'"
        " AND a.kind IN ('model', 'archive') ORDER BY i.id");
    while (st.step()) issues.emplace_back(st.int64(0), st.text(1));
  } else {
    IssueRef ref = parse_issue_ref(req.issue);
    issues.emplace_back(require_issue(*db, ref), to_string(ref));
  }
  int n = 0;
  for (const auto& [issue_id, ref] : issues) {
    if (req.limit && n >= req.limit) break;
    auto targets = issue_model_targets(*db, issue_id);
    if (targets.empty())
      targets.push_back(
          {"", "", "no fetched model artifact (run artifacts scan and fetch)", std::nullopt});
    for (const auto& t : targets) {
      if (req.limit && n >= req.limit) break;
      ++n;
      if (req.progress)
        std::cerr << "\r[" << n << "] " << terminal_safe(ref) << "\x1b[K" << std::flush;
      RunVerdict v;
      if (t.model.empty()) {
        v = model_run_verdict("");
        v.verdict = kNotRunnable;
        v.reason = t.reason;
        v.onnx_version = onnx_library_version();
      } else {
        ReproOptions o = req.options;
        o.inputs_dir = t.inputs_dir;
        v = reproduce_model(runner, t.model, o);
      }
      Transaction tx(*db);
      store_run(*db, v, RunOrigin{issue_id, t.artifact_id, std::nullopt});
      tx.commit();
      emit(
          ref + "  " + (t.model.empty() ? std::string("-") : fs::path(t.model).filename().string()),
          v, issue_id, ref);
    }
  }
  if (req.progress) std::cerr << "\r\x1b[K";
  output.finish(verdict_totals());
}

}  // namespace convfail::repro
