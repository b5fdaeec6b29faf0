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
#include "repro/reproduce_all.h"
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

std::int64_t store_verdict(Db& db, const ModelVerdict& v, std::optional<std::int64_t> issue_id,
                           std::optional<std::int64_t> artifact_id) {
  ReproRunRow row;
  row.issue_id = issue_id;
  row.artifact_id = artifact_id;
  row.model_path = v.model_path;
  row.verdict = v.verdict;
  row.step = v.step;
  row.signature = v.signature;
  row.reason = v.reason;
  row.output_name = v.output_name;
  row.max_abs_error = v.max_abs_error;
  row.max_rel_error = v.max_rel_error;
  row.ort_version = v.ort_version;
  row.onnx_version = v.onnx_version;
  row.duration_ms = v.duration_ms;
  row.message = v.error;
  nlohmann::json details = v.to_json();
  details["isolation"] = exec::current_isolation();  // which sandbox the run had
  row.details_json = json_text(details);
  return store_repro_run(db, row);
}

namespace {

// One printed line; everything in it may come from outside (paths, model names, errors).
std::string text_line(const std::string& label, const ModelVerdict& v) {
  std::string s = label + "  " + v.verdict;
  if (!v.step.empty() && v.verdict != kNotReproduced) s += " [" + v.step + "]";
  if (!v.reason.empty()) s += "  " + v.reason;
  if (!v.signature.empty()) s += "  " + v.signature;
  if (v.verdict == kWrongOutputReproduced || v.verdict == kNotReproduced) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "  max_abs=%.3g max_rel=%.3g", v.max_abs_error, v.max_rel_error);
    s += buf;
  }
  return terminal_safe(s);
}

// The totals of a model run: {"total": N, VERDICT: n, ...}.
json verdict_totals(const ReproduceSummary& s) {
  json t = {{"total", s.results()}};
  for (const auto& [verdict, count] : s.verdicts) t[verdict] = count;
  return t;
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

void run_issue_models(Db& db, const IssueList& issues, exec::OrtRunner& runner,
                      const ReproduceRequest& req, ResultOutput& output, ReproduceSummary& summary,
                      int* used) {
  std::size_t reached = 0;
  for (const auto& [issue_id, ref] : issues) {
    if (req.limit && *used >= req.limit) break;
    ++reached;
    auto targets = issue_model_targets(db, issue_id);
    if (targets.empty())
      targets.push_back(
          {"", "", "no fetched model artifact (run artifacts scan and fetch)", std::nullopt});
    for (const auto& t : targets) {
      if (req.limit && *used >= req.limit) break;
      ++*used;
      if (req.progress)
        std::cerr << "\r[" << *used << "] " << terminal_safe(ref) << "\x1b[K" << std::flush;
      ModelVerdict v;
      if (t.model.empty()) {
        v.verdict = kNotRunnable;
        v.reason = t.reason;
        v.onnx_version = onnx_library_version();
      } else {
        ReproOptions o = req.options;
        o.inputs_dir = t.inputs_dir;
        v = reproduce_model(runner, t.model, o);
      }
      Transaction tx(db);
      store_verdict(db, v, issue_id, t.artifact_id);
      tx.commit();
      ++summary.models;
      ++summary.verdicts[v.verdict];
      json j = v.to_json();
      j["issue"] = ref;
      std::string label =
          ref + "  " + (t.model.empty() ? std::string("-") : fs::path(t.model).filename().string());
      output.result(output.is_text() ? text_line(label, v) : std::string(), std::move(j),
                    output.is_text() ? message_lines(v.error, "") : std::vector<std::string>());
    }
  }
  summary.limited += static_cast<int>(issues.size() - reached);
  if (req.progress) std::cerr << "\r\x1b[K";
}

ReproduceSummary run_reproduce(ReproduceRequest req, Db* db, std::ostream& out) {
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
  ReproduceSummary summary;

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
      ModelVerdict v = reproduce_test_case(runner, c, req.options);
      std::string outcome = suite_outcome(v);
      totals.add(outcome);
      if (outcome != "pass")
        ++fail_signatures[outcome + " [" + v.step + "] " +
                          (v.reason.empty() ? v.signature : v.reason)];
      json j = v.to_json();
      j["case"] = name;
      j["outcome"] = outcome;
      // A suite has many cases: the first line of each failure's message only.
      output.result(
          output.is_text() ? terminal_safe(outcome) + "  " + text_line(name, v) : std::string(),
          std::move(j),
          output.is_text() && outcome != "pass" ? message_lines(v.error, "", 1)
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
    return summary;
  }

  if (!db) throw UserError("no database");
  if (!req.model.empty()) {
    req.options.inputs_dir = req.inputs_dir;
    ModelVerdict v = reproduce_model(runner, req.model, req.options);
    Transaction tx(*db);
    store_verdict(*db, v, std::nullopt, std::nullopt);
    tx.commit();
    ++summary.models;
    ++summary.verdicts[v.verdict];
    output.result(output.is_text() ? text_line(req.model, v) : std::string(), v.to_json(),
                  output.is_text() ? message_lines(v.error, "") : std::vector<std::string>());
    output.finish(verdict_totals(summary));
    return summary;
  }
  if (req.all) {
    summary = reproduce_all(*db, req, runner, output);
    output.finish(verdict_totals(summary), summary.to_json());
    return summary;
  }
  IssueRef ref = parse_issue_ref(req.issue);
  int used = 0;
  run_issue_models(*db, {{require_issue(*db, ref), to_string(ref)}}, runner, req, output, summary,
                   &used);
  output.finish(verdict_totals(summary));
  return summary;
}

}  // namespace convfail::repro
