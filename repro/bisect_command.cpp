#include "repro/bisect_command.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/issue_ref.h"
#include "core/json_util.h"
#include "core/text.h"
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
ModelVerdict run_input_sets(exec::OrtRunner& runner, const std::string& model, ReproOptions options,
                            const std::vector<std::string>& input_sets) {
  if (input_sets.empty()) return reproduce_model(runner, model, options);
  ModelVerdict worst;
  double ms = 0;
  for (const auto& set : input_sets) {
    options.inputs_dir = set;
    ModelVerdict v = reproduce_model(runner, model, options);
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

std::optional<ReleaseRun> stored_run(Db& db, const std::string& sha, const std::string& key,
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

void store_run(Db& db, const std::string& sha, const std::string& key, const std::string& version,
               int attempt, const ReleaseRun& r) {
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

// The models an issue's repro script exports (see BisectRequest::export_store), each copied with
// the inputs the script fed it and torch's eager outputs when they line up with the graph.
std::vector<Target> script_export_targets(Db& db, std::int64_t issue_id, const std::string& ref,
                                          const BisectRequest& req, std::ostream& err) {
  std::vector<Target> out;
  ExtractedScript script = extract_script(load_issue_text(db, issue_id));
  if (script.code.empty()) return out;
  if (req.progress) err << "bisect: " << terminal_safe(ref) << ": running its repro script\n";
  ModelEvaluator keep = [&](const HarnessExport& x) {
    ModelOutcome o;
    o.verdict = kNotReproduced;  // decided per release by the bisect, not here
    std::error_code ec;
    if (x.model_path.empty() || !fs::is_regular_file(x.model_path, ec)) return o;
    std::string sha = sha256_file(x.model_path);
    fs::path dest = fs::path(req.export_store) / sha;
    fs::path tmp = fs::path(req.export_store) / (".tmp-" + sha);
    bool with_inputs = x.inputs_match_graph && !x.inputs.empty();
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
    out.push_back({(dest / "model.onnx").string(),
                   with_inputs ? dest.string() : "",
                   ref + "  script export " + std::to_string(x.index),
                   issue_id,
                   {}});
    return o;
  };
  ScriptReproResult r = reproduce_script(script.code, req.script, keep);
  if (out.empty())
    err << "bisect: " << terminal_safe(ref) << ": its repro script exported no model ("
        << terminal_safe(r.verdict.verdict)
        << (r.verdict.reason.empty() ? "" : ": " + terminal_safe(r.verdict.reason)) << ")\n";
  return out;
}

std::string opt_text(const std::optional<std::string>& v) {
  return v ? *v : std::string("-");
}

void print_text(std::ostream& out, const Target& t, const std::string& sha, const BisectResult& r,
                double seconds) {
  out << terminal_safe(t.label) << "  (sha256 " << sha.substr(0, 12) << ")\n";
  out << "releases " << terminal_safe(r.releases.front()) << " .. "
      << terminal_safe(r.releases.back()) << " (" << r.releases.size() << "), tried "
      << r.tried.size() << ":\n";
  for (const auto& tr : r.tried) {
    const ReleaseRun& first = tr.runs.front();
    std::string line = "  " + tr.version + "  " + tr.verdict();
    if (tr.flaky) {
      line += " (" + tr.runs[0].verdict + ", then " + tr.runs[1].verdict + ")";
    } else {
      if (!first.step.empty() && first.verdict != kNotReproduced) line += " [" + first.step + "]";
      if (!first.reason.empty()) line += "  " + first.reason;
      if (!first.signature.empty()) line += "  " + first.signature;
    }
    if (tr.runs.size() > 1 && !tr.flaky) line += "  (confirmed)";
    if (first.stored) line += "  (stored)";
    out << terminal_safe(line) << "\n";
  }
  for (const auto& c : r.changes) {
    std::string line = "change: " + c.from + " in " + c.before + " -> " + c.to + " in " + c.after;
    if (!c.gap.empty()) {
      line += " (unknown between:";
      for (const auto& g : c.gap) line += " " + g;
      line += ")";
    }
    out << terminal_safe(line) << "\n";
  }
  if (r.changes.empty() && r.newest_known) out << "no change of verdict\n";
  std::string first_bad = opt_text(r.first_bad);
  if (r.first_bad && !r.regressed_in && r.tried.size() && r.first_bad == r.tried.front().version)
    first_bad += " (the oldest release tried)";
  out << "first bad: " << terminal_safe(first_bad) << "\n";
  out << "first good: " << terminal_safe(opt_text(r.fixed_in)) << "\n";
  out << "regressed in: " << terminal_safe(opt_text(r.regressed_in)) << "\n";
  if (auto kernel = r.kernel_text()) out << terminal_safe(*kernel) << "\n";
  if (r.newest_known)
    out << "still failing in the newest (" << terminal_safe(*r.newest_known)
        << "): " << (r.still_failing ? "yes" : "no") << "\n";
  else
    out << "no release gave a verdict\n";
  char buf[128];
  std::snprintf(buf, sizeof buf, "runs: %d new, %d stored, %.1f s\n", r.new_runs, r.stored_runs,
                seconds);
  out << buf;
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

void run_bisect(BisectRequest req, Db& db, RuntimeCache& cache, std::ostream& out,
                std::ostream& err) {
  req.options.dims = parse_dims(req.dims);
  std::vector<Target> targets;
  if (!req.model.empty()) {
    targets.push_back({req.model, "", req.model, std::nullopt, {}});
  } else if (!req.group_model.empty()) {
    targets.push_back({req.group_model, "", "group " + std::to_string(req.group_id.value_or(0)),
                       std::nullopt, req.group_input_sets});
  } else if (!req.issue.empty()) {
    IssueRef ref = parse_issue_ref(req.issue);
    std::int64_t issue_id = require_issue(db, ref);
    for (const auto& t : issue_model_targets(db, issue_id)) {
      if (t.model.empty()) {
        err << "bisect: " << terminal_safe(to_string(ref)) << ": " << terminal_safe(t.reason)
            << "\n";
        continue;
      }
      targets.push_back({t.model,
                         t.inputs_dir,
                         to_string(ref) + "  " + fs::path(t.model).filename().string(),
                         issue_id,
                         {}});
    }
    if (targets.empty() && !req.export_store.empty())
      targets = script_export_targets(db, issue_id, to_string(ref), req, err);
    if (targets.empty())
      throw UserError("bisect: " + to_string(ref) +
                      " has no fetched model to run (artifacts scan, artifacts fetch) and no "
                      "repro script that exports one");
  } else {
    throw UsageError("bisect needs MODEL, ISSUE or --group");
  }
  std::vector<std::string> releases = bisect_release_list(req, cache);

  json results = json::array();
  for (const auto& t : targets) {
    if (!fs::is_regular_file(t.model)) throw UserError("bisect: no model file " + t.model);
    auto t0 = std::chrono::steady_clock::now();
    // A campaign group's model over 2 GiB runs where the store keeps it, its external data files
    // beside it (the runner sees the model's folder); they are part of what identifies it.
    std::string sha = model_sha256(t.model, req.options.timeout_seconds);  // --timeout: hashing
    ReproOptions options = req.options;
    options.inputs_dir = t.input_sets.size() == 1 ? t.input_sets[0] : t.inputs_dir;
    std::string key = options_key(options, t.input_sets);
    ReleaseRunFn run = [&](const std::string& version, int attempt) -> ReleaseRun {
      if (auto stored = stored_run(db, sha, key, version, attempt)) return *stored;
      ReleaseRun r;
      InstallResult inst = cache.install(version, /*retry_failed=*/false);
      if (!inst.ok) {
        r.verdict = kInstallFailed;
        r.reason = inst.error.substr(0, 300);
        if (req.progress) err << "  " << terminal_safe(version) << ": install failed\n";
        return r;
      }
      if (req.progress && !inst.already)
        err << "  installed onnxruntime-node " << terminal_safe(version) << " ("
            << static_cast<int>(inst.seconds) << " s)\n";
      exec::RunnerOptions ro;
      ro.ort_dir = inst.dir;
      ro.limits.memory_bytes = req.memory_mb << 20;
      ro.limits.wall_seconds = options.timeout_seconds;
      ModelVerdict v;
      {
        exec::OrtRunner runner(ro);
        v = run_input_sets(runner, t.model, options, t.input_sets);
      }
      r.verdict = v.verdict;
      r.step = v.step;
      r.signature = v.signature;
      r.reason = v.reason;
      r.message = v.error;
      r.duration_ms = v.duration_ms;
      store_run(db, sha, key, version, attempt, r);
      if (req.progress)
        err << "  " << terminal_safe(version) << (attempt == 2 ? " (again)" : "") << ": "
            << terminal_safe(r.verdict) << "\n";
      return r;
    };
    BisectResult r;
    if (req.linear) {
      // The baseline: every release once, then the same analysis over the complete table.
      int ran = 0;
      for (const auto& v : releases) {
        ReleaseRun rr = run(v, 1);
        ran += !rr.stored && rr.verdict != kInstallFailed;
      }
      r = bisect_releases(releases, run);
      r.new_runs += ran;
      r.stored_runs -= ran;
    } else {
      r = bisect_releases(releases, run);
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    json rj = r.to_json();
    {
      Transaction tx(db);
      auto st = db.prepare(
          "INSERT INTO bisects(model_sha256, model_path, issue_id, campaign_group_id,"
          " from_version, to_version, first_bad, regressed_in, fixed_in, newest_known,"
          " still_failing, new_runs, stored_runs, result_json) VALUES"
          " (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
      st.bind(1, sha).bind(2, t.model).bind(3, t.issue_id).bind(4, req.group_id);
      st.bind(5, releases.front()).bind(6, releases.back());
      st.bind(7, r.first_bad).bind(8, r.regressed_in).bind(9, r.fixed_in).bind(10, r.newest_known);
      st.bind(11, r.still_failing ? 1 : 0).bind(12, r.new_runs).bind(13, r.stored_runs);
      st.bind(14, json_text(rj));
      st.step();
      tx.commit();
    }
    if (req.json) {
      rj["model"] = t.model;
      rj["sha256"] = sha;
      rj["seconds"] = seconds;
      if (t.issue_id) rj["issue"] = req.issue;
      if (req.group_id) rj["group"] = *req.group_id;
      results.push_back(std::move(rj));
    } else {
      print_text(out, t, sha, r, seconds);
    }
  }
  if (req.json) out << json_text(json{{"bisects", results}}) << "\n";
}

}  // namespace convfail::repro
