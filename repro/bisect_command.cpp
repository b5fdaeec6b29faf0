#include "repro/bisect_command.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/issue_ref.h"
#include "core/json_util.h"
#include "exec/ort_runner.h"
#include "repro/fetch.h"
#include "repro/model_files.h"
#include "repro/repro_command.h"
#include "repro/scripts/script_extract.h"
#include "repro/scripts/script_repro.h"

namespace convfail::repro {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// What makes two runs of the same model comparable: the options a verdict depends on.
std::string options_key(const ReproOptions& o, const std::vector<std::string>& input_sets) {
  json j = {{"atol", o.tolerance.atol},       {"rtol", o.tolerance.rtol}, {"seed", o.seed},
            {"max_elements", o.max_elements}, {"dims", o.dims},           {"inputs", o.inputs_dir}};
  if (input_sets.size() > 1) j["inputs"] = input_sets;  // one set keeps the key it had
  return sha256_hex(j.dump());
}

// One release's verdict over several input sets: the first set that does not pass decides
// (a crash or not_runnable ends the run, a wrong output is kept unless a later set crashes).
RunVerdict run_input_sets(exec::OrtRunner& runner, const std::string& model, ReproOptions options,
                          const std::vector<std::string>& input_sets) {
  if (input_sets.empty()) return reproduce_model(runner, model, options);
  RunVerdict worst;
  double ms = 0;
  for (const auto& set : input_sets) {
    options.inputs_dir = set;
    RunVerdict v = reproduce_model(runner, model, options);
    ms += v.duration_ms;
    bool first = worst.verdict.empty();
    if (v.verdict == kCrashReproduced || v.verdict == kNotRunnable) {
      worst = std::move(v);
      break;
    }
    if (first || (v.verdict == kWrongOutputReproduced && worst.verdict == kNotReproduced))
      worst = std::move(v);
  }
  worst.duration_ms = ms;
  return worst;
}

std::optional<ReleaseRun> stored_release_run(Db& db, const std::string& sha, const std::string& key,
                                             const std::string& version, int attempt) {
  auto st = db.prepare(
      "SELECT verdict, step, signature, reason, message, duration_ms FROM runtime_runs WHERE"
      " model_sha256 = ? AND options_key = ? AND ort_version = ? AND attempt = ?");
  st.bind(1, sha).bind(2, key).bind(3, version).bind(4, attempt);
  if (!st.step()) return std::nullopt;
  ReleaseRun r;
  r.verdict = st.text(0);
  r.step = st.text(1);
  r.signature = st.text(2);
  r.reason = st.text(3);
  r.message = st.text(4);
  r.duration_ms = st.is_null(5) ? 0 : st.real(5);
  r.stored = true;
  return r;
}

void store_release_run(Db& db, const std::string& sha, const std::string& key,
                       const std::string& version, int attempt, const ReleaseRun& r) {
  auto opt = [](const std::string& s) {
    return s.empty() ? std::optional<std::string>() : std::optional<std::string>(s);
  };
  Transaction tx(db);
  auto st = db.prepare(
      "INSERT OR REPLACE INTO runtime_runs(model_sha256, options_key, ort_version, attempt,"
      " verdict, step, signature, reason, message, duration_ms) VALUES (?,?,?,?,?,?,?,?,?,?)");
  st.bind(1, sha).bind(2, key).bind(3, version).bind(4, attempt).bind(5, r.verdict);
  st.bind(6, opt(r.step)).bind(7, opt(r.signature)).bind(8, opt(r.reason)).bind(9, opt(r.message));
  st.bind(10, r.duration_ms);
  st.step();
  tx.commit();
}

struct Target {
  std::string model, inputs_dir, label;
  std::optional<std::int64_t> issue_id;
  std::vector<std::string> input_sets;  // a group's: each run over all of them
};

void tell(const BisectProgress& progress, BisectEvent e) {
  if (progress.event) progress.event(e);
}

// Copies a model the script exported into export_store/<sha256>/ with the inputs it fed and
// torch's eager outputs when they line up with the graph; returns the kept model.
fs::path keep_export(const HarnessExport& x, const std::string& export_store, bool with_inputs) {
  std::string sha = sha256_file(x.model_path);
  fs::path dest = fs::path(export_store) / sha;
  fs::path tmp = fs::path(export_store) / (".tmp-" + sha);
  std::error_code ec;
  if (!fs::is_directory(dest, ec)) {
    fs::remove_all(tmp, ec);
    fs::create_directories(tmp);
    fs::copy_file(x.model_path, tmp / "model.onnx");
    for (std::size_t i = 0; with_inputs && i < x.inputs.size(); ++i)
      fs::copy_file(x.inputs[i], tmp / ("input_" + std::to_string(i) + ".pb"));
    for (std::size_t i = 0; x.comparable() && i < x.eager_outputs.size(); ++i)
      fs::copy_file(x.eager_outputs[i], tmp / ("output_" + std::to_string(i) + ".pb"));
    fs::rename(tmp, dest, ec);
    if (ec) throw UserError("cannot keep the script's model in " + dest.string());
  }
  return dest;
}

// The models an issue's repro script exports (see BisectRequest::export_store).
std::vector<Target> script_export_targets(Db& db, std::int64_t issue_id, const std::string& ref,
                                          const BisectRequest& req,
                                          const BisectProgress& progress) {
  std::vector<Target> out;
  ExtractedScript script = extract_script(load_issue_text(db, issue_id));
  if (script.code.empty()) return out;
  tell(progress, {BisectEvent::Kind::kScriptRunning, ref, "", ""});
  ModelEvaluator keep = [&](const HarnessExport& x) {
    RunVerdict o;
    o.verdict = kNotReproduced;  // decided per release by the bisect, not here
    std::error_code ec;
    if (x.model_path.empty() || !fs::is_regular_file(x.model_path, ec)) return o;
    bool with_inputs = x.inputs_match_graph && !x.inputs.empty();
    fs::path dest = keep_export(x, req.export_store, with_inputs);
    out.push_back({(dest / "model.onnx").string(),
                   with_inputs ? dest.string() : "",
                   ref + "  script export " + std::to_string(x.index),
                   issue_id,
                   {}});
    return o;
  };
  ScriptReproResult r = reproduce_script(script.code, req.script, keep);
  if (out.empty())
    tell(progress, {BisectEvent::Kind::kScriptNoModel, ref, r.verdict.verdict, r.verdict.reason});
  return out;
}

// An issue's fetched models, else (with an export store) the models its repro script exports.
std::vector<Target> issue_targets(const BisectRequest& req, Db& db,
                                  const BisectProgress& progress) {
  IssueRef ref = parse_issue_ref(req.issue);
  std::int64_t issue_id = require_issue(db, ref);
  std::vector<Target> targets;
  for (const auto& t : issue_model_targets(db, issue_id)) {
    if (t.model.empty()) {
      tell(progress, {BisectEvent::Kind::kSkipped, to_string(ref), "", t.reason});
      continue;
    }
    targets.push_back({t.model,
                       t.inputs_dir,
                       to_string(ref) + "  " + fs::path(t.model).filename().string(),
                       issue_id,
                       {}});
  }
  if (targets.empty() && !req.export_store.empty())
    targets = script_export_targets(db, issue_id, to_string(ref), req, progress);
  if (targets.empty())
    throw UserError("bisect: " + to_string(ref) +
                    " has no fetched model to run (artifacts scan, artifacts fetch) and no "
                    "repro script that exports one");
  return targets;
}

std::vector<Target> bisect_targets(const BisectRequest& req, Db& db,
                                   const BisectProgress& progress) {
  if (!req.model.empty()) return {{req.model, "", req.model, std::nullopt, {}}};
  if (!req.group_model.empty())
    return {{req.group_model, "", "group " + std::to_string(req.group_id.value_or(0)), std::nullopt,
             req.group_input_sets}};
  if (!req.issue.empty()) return issue_targets(req, db, progress);
  throw UsageError("bisect needs MODEL, ISSUE or --group");
}

// One model's run on one release: read back when stored, else installed, run and stored.
ReleaseRunFn release_runner(const BisectRequest& req, const Target& t, const std::string& sha,
                            const ReproOptions& options, Db& db, RuntimeCache& cache,
                            const BisectProgress& progress) {
  std::string key = options_key(options, t.input_sets);
  return [&req, &t, sha, options, key, &db, &cache, &progress](const std::string& version,
                                                               int attempt) -> ReleaseRun {
    if (auto stored = stored_release_run(db, sha, key, version, attempt)) return *stored;
    ReleaseRun r;
    InstallResult inst = cache.install(version, /*retry_failed=*/false);
    if (!inst.ok) {
      r.verdict = kInstallFailed;
      r.reason = inst.error.substr(0, 300);
      tell(progress, {BisectEvent::Kind::kNotInstalled, version, "", ""});
      return r;
    }
    if (!inst.already)
      tell(progress, {BisectEvent::Kind::kInstalled, version, "", "", 1, inst.seconds});
    exec::RunnerOptions ro;
    ro.ort_dir = inst.dir;
    ro.limits.memory_bytes = req.memory_mb << 20;
    ro.limits.wall_seconds = options.timeout_seconds;
    RunVerdict v;
    {
      exec::OrtRunner runner(ro);
      v = run_input_sets(runner, t.model, options, t.input_sets);
    }
    r = {v.verdict, v.step, v.signature, v.reason, v.message, false, v.duration_ms};
    store_release_run(db, sha, key, version, attempt, r);
    tell(progress, {BisectEvent::Kind::kRan, version, r.verdict, "", attempt});
    return r;
  };
}

void store_bisect(Db& db, const BisectedModel& m, const BisectRequest& req,
                  const std::vector<std::string>& releases) {
  const BisectResult& r = m.result;
  Transaction tx(db);
  auto st = db.prepare(
      "INSERT INTO bisects(model_sha256, model_path, issue_id, campaign_group_id,"
      " from_version, to_version, first_bad, regressed_in, fixed_in, newest_known,"
      " still_failing, new_runs, stored_runs, result_json) VALUES"
      " (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  st.bind(1, m.sha256).bind(2, m.model).bind(3, m.issue_id).bind(4, req.group_id);
  st.bind(5, releases.front()).bind(6, releases.back());
  st.bind(7, r.first_bad).bind(8, r.regressed_in).bind(9, r.fixed_in).bind(10, r.newest_known);
  st.bind(11, r.still_failing ? 1 : 0).bind(12, r.new_runs).bind(13, r.stored_runs);
  st.bind(14, json_text(r.to_json()));
  st.step();
  tx.commit();
}

BisectedModel bisect_target(const BisectRequest& req, const Target& t,
                            const std::vector<std::string>& releases, Db& db, RuntimeCache& cache,
                            const BisectProgress& progress) {
  if (!fs::is_regular_file(t.model)) throw UserError("bisect: no model file " + t.model);
  auto t0 = std::chrono::steady_clock::now();
  // A campaign group's model over 2 GiB runs where the store keeps it, its external data files
  // beside it (the runner sees the model's folder); they are part of what identifies it.
  BisectedModel m{t.label, t.model, model_sha256(t.model), t.issue_id, {}, 0};
  ReproOptions options = req.options;
  options.inputs_dir = t.input_sets.size() == 1 ? t.input_sets[0] : t.inputs_dir;
  ReleaseRunFn run = release_runner(req, t, m.sha256, options, db, cache, progress);
  if (req.linear) {
    // The baseline: every release once, then the same analysis over the complete table.
    int ran = 0;
    for (const auto& v : releases) {
      ReleaseRun rr = run(v, 1);
      ran += !rr.stored && rr.verdict != kInstallFailed;
    }
    m.result = bisect_releases(releases, run);
    m.result.new_runs += ran;
    m.result.stored_runs -= ran;
  } else {
    m.result = bisect_releases(releases, run);
  }
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  store_bisect(db, m, req, releases);
  return m;
}

}  // namespace

std::vector<std::string> bisect_release_list(const BisectRequest& req, RuntimeCache& cache) {
  for (const auto& v : {req.from, req.to})
    if (!v.empty() && !valid_runtime_version(v))
      throw UsageError("--from/--to want an onnxruntime-node version such as 1.21.0, got '" + v +
                       "'");
  std::vector<std::string> all;
  if (!req.releases.empty()) {
    for (const auto& v : req.releases)
      if (!valid_runtime_version(v))
        throw UsageError("--releases: not an onnxruntime-node version: '" + v + "'");
    all = req.releases;
  } else if (req.installed_only) {
    for (const auto& r : cache.list())
      if (!r.failed) all.push_back(r.version);
  } else {
    all = cache.available();
  }
  std::sort(all.begin(), all.end(), version_less);
  all.erase(std::unique(all.begin(), all.end()), all.end());
  std::vector<std::string> out;
  for (const auto& v : all) {
    if (!req.from.empty() && version_less(v, req.from)) continue;
    if (!req.to.empty() && version_less(req.to, v)) continue;
    out.push_back(v);
  }
  if (out.empty()) throw UserError("no onnxruntime-node release in the range to bisect");
  return out;
}

std::vector<BisectedModel> run_bisect(BisectRequest req, Db& db, RuntimeCache& cache,
                                      const BisectProgress& progress) {
  req.options.dims = parse_dims(req.dims);
  std::vector<Target> targets = bisect_targets(req, db, progress);
  std::vector<std::string> releases = bisect_release_list(req, cache);
  std::vector<BisectedModel> out;
  for (const auto& t : targets) {
    out.push_back(bisect_target(req, t, releases, db, cache, progress));
    if (progress.done) progress.done(out.back());
  }
  return out;
}

}  // namespace convfail::repro
