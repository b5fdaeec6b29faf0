#include "repro/repro_command.h"

#include <filesystem>
#include <fstream>
#include <map>

#include <re2/re2.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/issue_ref.h"
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

namespace {

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

namespace {

// Checks the request's numbers and starts one warm runner for the whole request (a suite's may
// read the suite's folder).
exec::RunnerOptions checked_runner_options(ReproduceRequest& req) {
  req.options.dims = parse_dims(req.dims);
  if (req.options.tolerance.atol < 0 || req.options.tolerance.rtol < 0)
    throw UsageError("--atol and --rtol must not be negative");
  if (req.options.max_elements < 1 || req.options.max_elements > kMaxMaxElements)
    throw UsageError("--max-elements must be between 1 and " + std::to_string(kMaxMaxElements));
  exec::RunnerOptions ro = runner_options_for(req.ort_version);
  ro.limits.memory_bytes = req.memory_mb << 20;
  ro.limits.wall_seconds = req.options.timeout_seconds;
  if (!req.suite.empty()) ro.model_roots = {req.suite};
  return ro;
}

// Records one model in `result` and tells the caller.
void add_model(ReproduceResult& result, ReproducedModel m, const ReproduceProgress& progress) {
  if (!result.suite) ++result.verdicts[m.verdict.verdict];
  result.models.push_back(std::move(m));
  if (progress.done) progress.done(result.models.back());
}

void reproduce_suite(const ReproduceRequest& req, exec::OrtRunner& runner,
                     const ReproduceProgress& progress, ReproduceResult& result) {
  result.suite = true;
  auto cases = list_suite_cases(req.suite);
  int n = 0;
  for (const auto& c : cases) {
    std::string name = fs::path(c).filename().string();
    if (!req.filter.empty() && name.find(req.filter) == std::string::npos) continue;
    if (req.limit && n >= req.limit) break;
    ++n;
    if (progress.starting) progress.starting(n, cases.size(), name);
    ReproducedModel m{name, "", "", reproduce_test_case(runner, c, req.options)};
    m.suite_outcome = suite_outcome(m.verdict);
    result.suite_totals.add(m.suite_outcome);
    if (m.suite_outcome != "pass")
      ++result.fail_signatures[m.suite_outcome + " [" + m.verdict.step + "] " +
                               (m.verdict.reason.empty() ? m.verdict.signature : m.verdict.reason)];
    add_model(result, std::move(m), progress);
  }
  result.runner_starts = runner.process_starts();
  result.checker_starts = runner.checker_starts();
}

// One model of an issue: run (or not runnable with the target's reason) and stored.
RunVerdict reproduce_target(exec::OrtRunner& runner, Db& db, const ModelTarget& t,
                            std::int64_t issue_id, ReproOptions options) {
  RunVerdict v;
  if (t.model.empty()) {
    v = model_run_verdict("");
    v.verdict = kNotRunnable;
    v.reason = t.reason;
    v.onnx_version = onnx_library_version();
  } else {
    options.inputs_dir = t.inputs_dir;
    v = reproduce_model(runner, t.model, options);
  }
  Transaction tx(db);
  store_run(db, v, RunOrigin{issue_id, t.artifact_id, std::nullopt});
  tx.commit();
  return v;
}

}  // namespace

int reproduce_issue_models(Db& db, const IssueList& issues, exec::OrtRunner& runner,
                           const ReproduceRequest& req, const ReproduceProgress& progress,
                           ReproduceResult& result) {
  auto used = [&] { return static_cast<int>(result.models.size() + result.scripts.size()); };
  std::size_t reached = 0;
  for (const auto& [issue_id, ref] : issues) {
    if (req.limit && used() >= req.limit) break;
    ++reached;
    auto targets = issue_model_targets(db, issue_id);
    if (targets.empty())
      targets.push_back(
          {"", "", "no fetched model artifact (run artifacts scan and fetch)", std::nullopt});
    for (const auto& t : targets) {
      if (req.limit && used() >= req.limit) break;
      if (progress.starting) progress.starting(used() + 1, 0, ref);
      std::string name = t.model.empty() ? "-" : fs::path(t.model).filename().string();
      add_model(result, {name, ref, "", reproduce_target(runner, db, t, issue_id, req.options)},
                progress);
    }
  }
  return static_cast<int>(issues.size() - reached);
}

ReproduceResult run_reproduce(ReproduceRequest req, Db* db, const ReproduceProgress& progress) {
  exec::OrtRunner runner(checked_runner_options(req));
  ReproduceResult result;
  if (!req.suite.empty()) {
    reproduce_suite(req, runner, progress, result);
    return result;
  }
  if (!db) throw UserError("no database");
  if (!req.model.empty()) {
    req.options.inputs_dir = req.inputs_dir;
    RunVerdict v = reproduce_model(runner, req.model, req.options);
    Transaction tx(*db);
    store_run(*db, v, RunOrigin{});
    tx.commit();
    add_model(result, {req.model, "", "", std::move(v)}, progress);
    return result;
  }
  if (req.all) {
    reproduce_all(*db, req, runner, progress, result);
    return result;
  }
  IssueRef ref = parse_issue_ref(req.issue);
  reproduce_issue_models(*db, {{require_issue(*db, ref), to_string(ref)}}, runner, req, progress,
                         result);
  return result;
}

}  // namespace convfail::repro
