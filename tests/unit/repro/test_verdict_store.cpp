// repro_runs has one writer, store_repro_run; `reproduce` (store_verdict) and `reproduce
// --scripts` (store_script_run) both go through it.
#include <doctest/doctest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/db.h"
#include "core/error.h"
#include "core/migrations.h"
#include "repro/repro_command.h"
#include "repro/scripts/script_repro.h"
#include "repro/verdict_store.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::repro;

namespace {

struct StoreFixture {
  test::TempDir dir;
  Db db{dir.file("c.db")};
  std::int64_t issue = 0, artifact = 0;
  StoreFixture() {
    migrate(db);
    db.exec("INSERT INTO repositories(full_name) VALUES ('o/r')");
    db.exec("INSERT INTO issues(repo_id, number, title) VALUES (1, 7, 't')");
    issue = db.last_insert_id();
    db.exec(
        "INSERT INTO artifacts(issue_id, kind, url) VALUES (1, 'model', 'https://e.org/m.onnx')");
    artifact = db.last_insert_id();
  }
  // Column `col` of repro_runs row `id`, NULL as nullopt.
  std::optional<std::string> column(std::int64_t id, const std::string& col) {
    auto st = db.prepare("SELECT " + col + " FROM repro_runs WHERE id = ?");
    st.bind(1, id);
    REQUIRE(st.step());
    return st.opt_text(0);
  }
};

}  // namespace

TEST_CASE("verdict store: every column lands; empty text and NaN errors are NULL") {
  StoreFixture f;
  ReproRunRow row;
  row.issue_id = f.issue;
  row.artifact_id = f.artifact;
  row.model_path = "/store/abc";
  row.verdict = "wrong_output_reproduced";
  row.step = "compare";
  row.signature = "output y vs eager: 1 of 2 elements differ";
  row.output_name = "y";
  row.max_abs_error = 0.5;
  row.ort_version = "1.17.0";
  row.onnx_version = "1.15.0";
  row.torch_version = "2.1.0";
  row.duration_ms = 12.5;
  row.details_json = R"({"k":1})";
  std::int64_t id = store_repro_run(f.db, row);
  CHECK(id > 0);
  CHECK(f.column(id, "issue_id") == std::to_string(f.issue));
  CHECK(f.column(id, "artifact_id") == std::to_string(f.artifact));
  CHECK(f.column(id, "model_path") == "/store/abc");
  CHECK(f.column(id, "verdict") == "wrong_output_reproduced");
  CHECK(f.column(id, "step") == "compare");
  CHECK(f.column(id, "signature") == row.signature);
  CHECK(f.column(id, "reason") == std::nullopt);  // empty
  CHECK(f.column(id, "output_name") == "y");
  CHECK(f.db.scalar("SELECT max_abs_error * 10 FROM repro_runs WHERE id = " + std::to_string(id)) ==
        5);
  CHECK(f.column(id, "max_rel_error") == std::nullopt);  // NaN
  CHECK(f.column(id, "ort_version") == "1.17.0");
  CHECK(f.column(id, "onnx_version") == "1.15.0");
  CHECK(f.column(id, "torch_version") == "2.1.0");
  CHECK(f.column(id, "details_json") == R"({"k":1})");
  CHECK(f.column(id, "script_source") == std::nullopt);
  CHECK(f.column(id, "script_sha256") == std::nullopt);
  CHECK(f.column(id, "started_at").has_value());

  ReproRunRow bare;  // `reproduce --model`: no issue, no artifact
  bare.verdict = "not_runnable";
  std::int64_t second = store_repro_run(f.db, bare);
  CHECK(second == id + 1);
  CHECK(f.column(second, "issue_id") == std::nullopt);
  CHECK(f.column(second, "artifact_id") == std::nullopt);
  CHECK(f.column(second, "max_abs_error") == std::nullopt);

  ReproRunRow none;
  CHECK_THROWS_AS(store_repro_run(f.db, none), UserError);
  CHECK(f.db.scalar("SELECT count(*) FROM repro_runs") == 2);
}

TEST_CASE("verdict store: model runs and script runs are rows of the same shape") {
  StoreFixture f;
  ModelVerdict mv;
  mv.model_path = "/store/m.onnx";
  mv.verdict = "crash_reproduced";
  mv.step = "session";
  mv.signature = "[onnxruntimeerror] : n : fail : boom";
  mv.duration_ms = 3;
  mv.ort_version = "1.17.0";
  std::int64_t model_id = store_verdict(f.db, mv, f.issue, f.artifact);

  ScriptReproResult sr;
  sr.verdict.verdict = "crash_reproduced";
  sr.verdict.step = "export";
  sr.verdict.signature = mv.signature;
  sr.verdict.details = {{"phase", "done"}};
  sr.torch_version = "2.1.0";
  sr.script_sha256 = "ab12";
  sr.blocks = 2;
  sr.duration_ms = 40;
  std::int64_t script_id = store_script_run(f.db, f.issue, std::nullopt, sr);

  CHECK(f.column(model_id, "model_path") == "/store/m.onnx");
  CHECK(f.column(model_id, "script_source") == std::nullopt);
  CHECK(f.column(model_id, "max_abs_error") == "0.0");  // the model path's default
  CHECK(nlohmann::json::parse(*f.column(model_id, "details_json"))["verdict"] ==
        "crash_reproduced");
  CHECK(f.column(script_id, "model_path") == std::nullopt);
  CHECK(f.column(script_id, "script_source") == "none");  // no code blocks found
  CHECK(f.column(script_id, "script_sha256") == "ab12");
  CHECK(f.column(script_id, "torch_version") == "2.1.0");
  CHECK(f.column(script_id, "max_abs_error") == std::nullopt);  // NaN: not compared
  auto details = nlohmann::json::parse(*f.column(script_id, "details_json"));
  CHECK(details["blocks"] == 2);
  CHECK(details["phase"] == "done");
  // Both sign the same failure the same way: they group together.
  CHECK(f.db.scalar("SELECT count(DISTINCT signature) FROM repro_runs") == 1);
  CHECK(f.db.scalar("SELECT count(*) FROM repro_runs WHERE issue_id = " +
                    std::to_string(f.issue)) == 2);
}
