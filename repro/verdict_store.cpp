#include "repro/verdict_store.h"

#include <cmath>

#include "core/error.h"
#include "core/json_util.h"
#include "core/text.h"
#include "exec/sandbox.h"

namespace convfail::repro {

namespace {

void bind_number(Stmt& st, int index, const std::optional<double>& value) {
  if (value && !std::isnan(*value))
    st.bind(index, *value);
  else
    st.bind_null(index);
}

// What details_json holds: a model run's JSON and the sandbox it had, a script run's details.
nlohmann::json stored_details(const RunVerdict& v, const std::optional<ScriptInfo>& script) {
  if (script) {
    nlohmann::json d = v.details;
    d["blocks"] = script->blocks;
    return d;
  }
  nlohmann::json d = model_run_json(v);
  d["isolation"] = exec::current_isolation();  // which sandbox the run had
  return d;
}

}  // namespace

std::int64_t store_run(Db& db, const RunVerdict& v, const RunOrigin& origin) {
  if (v.verdict.empty()) throw UserError("a repro run without a verdict cannot be stored");
  auto text = [](const std::string& s) {
    return s.empty() ? std::nullopt : std::optional<std::string>(s);
  };
  // Cut and escaped here too: text that reaches a terminal from the database must be printable
  // whoever produced it (idempotent on text the producers made safe already).
  auto people_text = [&](const std::string& s, std::size_t max_bytes) {
    std::string safe = terminal_safe(s, /*keep_newlines=*/true, /*escape_backslash=*/false);
    std::string cut = truncate_utf8(safe, max_bytes);
    if (cut.size() < safe.size()) cut += "...";
    while (!cut.empty() && (cut.back() == '\n' || cut.back() == ' ')) cut.pop_back();
    return text(cut);
  };
  const std::optional<ScriptInfo>& script = origin.script;
  auto st = db.prepare(
      "INSERT INTO repro_runs (issue_id, artifact_id, model_path, verdict, step, signature, "
      "reason, output_name, max_abs_error, max_rel_error, ort_version, onnx_version, "
      "torch_version, duration_ms, details_json, script_source, script_sha256, message, "
      "traceback) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  st.bind(1, origin.issue_id).bind(2, origin.artifact_id).bind(3, text(v.model_path));
  st.bind(4, v.verdict).bind(5, text(v.step)).bind(6, text(v.signature)).bind(7, text(v.reason));
  st.bind(8, text(v.output_name));
  bind_number(st, 9, v.max_abs_error);
  bind_number(st, 10, v.max_rel_error);
  st.bind(11, text(v.ort_version)).bind(12, text(v.onnx_version));
  st.bind(13, text(script ? script->torch_version : ""));
  st.bind(14, v.duration_ms).bind(15, json_text(stored_details(v, script)));
  st.bind(16, script ? text(script->source.empty() ? "none" : script->source) : std::nullopt);
  st.bind(17, text(script ? script->sha256 : ""));
  st.bind(18, people_text(v.message, kMaxMessageBytes));
  st.bind(19, people_text(v.traceback, kMaxTracebackBytes));
  st.run();
  return db.last_insert_id();
}

std::vector<StoredReproRun> issue_repro_runs(Db& db, std::int64_t issue_id) {
  auto st = db.prepare(
      "SELECT id, verdict, started_at, step, signature, reason, output_name, message, traceback, "
      "max_abs_error, script_source IS NOT NULL, coalesce(artifact_id, ''), "
      "coalesce(model_path, '') FROM repro_runs WHERE issue_id = ? ORDER BY id");
  st.bind(1, issue_id);
  std::vector<StoredReproRun> out;
  while (st.step()) {
    StoredReproRun r;
    r.id = st.int64(0);
    r.verdict = st.text(1);
    r.started_at = st.text(2);
    r.step = st.opt_text(3);
    r.signature = st.opt_text(4);
    r.reason = st.opt_text(5);
    r.output_name = st.opt_text(6);
    r.message = st.opt_text(7);
    r.traceback = st.opt_text(8);
    if (!st.is_null(9)) r.max_abs_error = st.real(9);
    r.script = st.int64(10) != 0;
    std::string path = st.text(12);
    r.program = r.script ? "script" : "model:" + st.text(11) + ":" + path;
    r.program_name = r.script ? "script" : path.substr(path.find_last_of('/') + 1);
    if (r.program_name.empty()) r.program_name = "model (artifact " + st.text(11) + ")";
    out.push_back(std::move(r));
  }
  return out;
}

namespace {

// Latest runs: no later run of the same issue and program (script runs are one program per issue;
// model runs one per artifact and model path).
constexpr const char* kLatestRuns =
    "SELECT id, issue_id, CASE WHEN script_source IS NOT NULL THEN 'script' ELSE 'model' END, "
    "verdict, coalesce(step, ''), coalesce(signature, ''), started_at FROM repro_runs r "
    "WHERE issue_id IS NOT NULL AND ?1 IN (0, issue_id) AND NOT EXISTS (SELECT 1 FROM repro_runs "
    "l WHERE l.issue_id = r.issue_id AND l.id > r.id AND (l.script_source IS NOT NULL) = "
    "(r.script_source IS NOT NULL) AND (r.script_source IS NOT NULL OR (l.artifact_id IS "
    "r.artifact_id AND l.model_path IS r.model_path))) ORDER BY issue_id, id";

std::vector<StoredVerdict> read_latest(Db& db, std::int64_t issue_id) {
  auto st = db.prepare(kLatestRuns);
  st.bind(1, issue_id);
  std::vector<StoredVerdict> out;
  while (st.step())
    out.push_back(
        {st.int64(0), st.int64(1), st.text(2), st.text(3), st.text(4), st.text(5), st.text(6)});
  return out;
}

}  // namespace

std::vector<StoredVerdict> latest_verdicts(Db& db, std::int64_t issue_id) {
  if (issue_id == 0) return {};
  return read_latest(db, issue_id);
}

std::map<std::int64_t, std::vector<StoredVerdict>> latest_verdicts_by_issue(Db& db) {
  std::map<std::int64_t, std::vector<StoredVerdict>> out;
  for (StoredVerdict& v : read_latest(db, 0)) out[v.issue_id].push_back(std::move(v));
  return out;
}

std::map<std::int64_t, std::string> latest_issue_verdicts(Db& db) {
  Stmt st(db,
          "SELECT issue_id, verdict FROM repro_runs r WHERE issue_id IS NOT NULL AND "
          "id = (SELECT max(id) FROM repro_runs r2 WHERE r2.issue_id = r.issue_id)");
  std::map<std::int64_t, std::string> verdicts;
  while (st.step()) verdicts[st.int64(0)] = st.text(1);
  return verdicts;
}

std::vector<std::int64_t> issues_with_verdict(Db& db, const std::string& verdict) {
  Stmt st(db,
          "SELECT DISTINCT issue_id FROM repro_runs WHERE verdict = ? AND issue_id IS NOT NULL "
          "ORDER BY issue_id");
  st.bind(1, verdict);
  std::vector<std::int64_t> out;
  while (st.step()) out.push_back(st.int64(0));
  return out;
}

}  // namespace convfail::repro
