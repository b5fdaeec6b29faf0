#include "repro/verdict_store.h"

#include <cmath>

#include "core/error.h"

namespace convfail::repro {

std::int64_t store_repro_run(Db& db, const ReproRunRow& r) {
  if (r.verdict.empty()) throw UserError("a repro run without a verdict cannot be stored");
  auto text = [](const std::string& s) {
    return s.empty() ? std::nullopt : std::optional<std::string>(s);
  };
  auto st = db.prepare(
      "INSERT INTO repro_runs (issue_id, artifact_id, model_path, verdict, step, signature, "
      "reason, output_name, max_abs_error, max_rel_error, ort_version, onnx_version, "
      "torch_version, duration_ms, details_json, script_source, script_sha256) "
      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  st.bind(1, r.issue_id).bind(2, r.artifact_id).bind(3, text(r.model_path)).bind(4, r.verdict);
  st.bind(5, text(r.step)).bind(6, text(r.signature)).bind(7, text(r.reason));
  st.bind(8, text(r.output_name));
  for (auto [index, value] : {std::pair{9, r.max_abs_error}, std::pair{10, r.max_rel_error}}) {
    if (std::isnan(value))
      st.bind_null(index);
    else
      st.bind(index, value);
  }
  st.bind(11, text(r.ort_version)).bind(12, text(r.onnx_version)).bind(13, text(r.torch_version));
  st.bind(14, r.duration_ms).bind(15, text(r.details_json));
  st.bind(16, text(r.script_source)).bind(17, text(r.script_sha256));
  st.run();
  return db.last_insert_id();
}

}  // namespace convfail::repro
