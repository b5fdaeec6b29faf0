// repro_runs has one writer, store_run: a model run (`reproduce`) and a script run (`reproduce
// --scripts`) are the same RunVerdict with another RunOrigin.
#include <doctest/doctest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "cli/result_output.h"
#include "core/db.h"
#include "core/error.h"
#include "core/migrations.h"
#include "core/taxonomy.h"
#include "repro/repro_command.h"
#include "repro/scripts/script_repro.h"
#include "repro/verdict_store.h"
#include "test_helpers.h"
#include "web/api.h"

using namespace convfail;
using namespace convfail::repro;
using namespace convfail::exec;

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

TEST_CASE("verdict store: every column lands, empty text and unset numbers are NULL") {
  StoreFixture f;
  RunVerdict v;
  v.model_path = "/store/abc";
  v.verdict = "wrong_output_reproduced";
  v.step = "compare";
  v.signature = "output y vs eager: 1 of 2 elements differ";
  v.output_name = "y";
  v.max_abs_error = 0.5;  // max_rel_error unset: nothing measured
  v.ort_version = "1.17.0";
  v.onnx_version = "1.15.0";
  v.duration_ms = 12.5;
  std::int64_t id = store_run(f.db, v, {f.issue, f.artifact, std::nullopt});
  CHECK(id > 0);
  CHECK(f.column(id, "issue_id") == std::to_string(f.issue));
  CHECK(f.column(id, "artifact_id") == std::to_string(f.artifact));
  CHECK(f.column(id, "model_path") == "/store/abc");
  CHECK(f.column(id, "verdict") == "wrong_output_reproduced");
  CHECK(f.column(id, "step") == "compare");
  CHECK(f.column(id, "signature") == v.signature);
  CHECK(f.column(id, "reason") == std::nullopt);  // empty
  CHECK(f.column(id, "output_name") == "y");
  CHECK(f.db.scalar("SELECT max_abs_error * 10 FROM repro_runs WHERE id = " + std::to_string(id)) ==
        5);
  CHECK(f.column(id, "max_rel_error") == std::nullopt);  // unset
  CHECK(f.column(id, "ort_version") == "1.17.0");
  CHECK(f.column(id, "onnx_version") == "1.15.0");
  CHECK(f.column(id, "torch_version") == std::nullopt);  // a model run
  CHECK(f.db.scalar("SELECT duration_ms * 2 FROM repro_runs WHERE id = " + std::to_string(id)) ==
        25);
  auto details = nlohmann::json::parse(*f.column(id, "details_json"));
  CHECK(details == [&] {
    nlohmann::json d = model_run_json(v);
    d["isolation"] = current_isolation();
    return d;
  }());
  CHECK(details["max_rel_error"].is_null());
  CHECK(f.column(id, "script_source") == std::nullopt);
  CHECK(f.column(id, "script_sha256") == std::nullopt);
  CHECK(f.column(id, "started_at").has_value());

  RunVerdict bare;  // `reproduce --model`: no issue, no artifact
  bare.verdict = "not_runnable";
  bare.max_abs_error = std::nan("");  // NaN is no value either
  std::int64_t second = store_run(f.db, bare, {});
  CHECK(second == id + 1);
  CHECK(f.column(second, "issue_id") == std::nullopt);
  CHECK(f.column(second, "artifact_id") == std::nullopt);
  CHECK(f.column(second, "max_abs_error") == std::nullopt);

  CHECK_THROWS_AS(store_run(f.db, RunVerdict{}, {}), UserError);
  CHECK(f.db.scalar("SELECT count(*) FROM repro_runs") == 2);
}

TEST_CASE("verdict store: model runs and script runs are rows of the same shape") {
  StoreFixture f;
  RunVerdict mv = model_run_verdict("/store/m.onnx");
  mv.verdict = "crash_reproduced";
  mv.step = "session";
  mv.signature = "[onnxruntimeerror] : n : fail : boom";
  mv.duration_ms = 3;
  mv.ort_version = "1.17.0";
  std::int64_t model_id = store_run(f.db, mv, {f.issue, f.artifact, std::nullopt});

  ScriptReproResult sr;
  sr.verdict.verdict = "crash_reproduced";
  sr.verdict.step = "export";
  sr.verdict.signature = mv.signature;
  sr.verdict.details = {{"phase", "done"}};
  sr.verdict.duration_ms = 40;
  sr.script.torch_version = "2.1.0";
  sr.script.sha256 = "ab12";
  sr.script.blocks = 2;
  std::int64_t script_id = store_run(f.db, sr.verdict, {f.issue, std::nullopt, sr.script});

  CHECK(f.column(model_id, "model_path") == "/store/m.onnx");
  CHECK(f.column(model_id, "script_source") == std::nullopt);
  CHECK(f.column(model_id, "max_abs_error") == "0.0");  // the model path's default
  CHECK(nlohmann::json::parse(*f.column(model_id, "details_json"))["verdict"] ==
        "crash_reproduced");
  CHECK(f.column(script_id, "model_path") == std::nullopt);
  CHECK(f.column(script_id, "script_source") == "none");  // no code blocks found
  CHECK(f.column(script_id, "script_sha256") == "ab12");
  CHECK(f.column(script_id, "torch_version") == "2.1.0");
  CHECK(f.column(script_id, "max_abs_error") == std::nullopt);  // unset: not compared
  auto details = nlohmann::json::parse(*f.column(script_id, "details_json"));
  CHECK(details["blocks"] == 2);
  CHECK(details["phase"] == "done");
  // Both sign the same failure the same way: they group together.
  CHECK(f.db.scalar("SELECT count(DISTINCT signature) FROM repro_runs") == 1);
  CHECK(f.db.scalar("SELECT count(*) FROM repro_runs WHERE issue_id = " +
                    std::to_string(f.issue)) == 2);
}

TEST_CASE("verdict store: message and traceback are stored cut and escaped, and read back") {
  StoreFixture f;
  RunVerdict row;
  row.verdict = "crash_reproduced";
  row.signature = "field '<name>' of '<name>' is required but missing.";
  row.message = "Field 'shape' of 'type' is required but missing.\n\x1b]0;pwned\x07 \xff end";
  row.traceback = "Traceback (most recent call last):\n" + std::string(10000, 't');
  std::int64_t id = store_run(f.db, row, {f.issue, std::nullopt, std::nullopt});
  // Newlines kept (multi-line texts), every control character and invalid byte escaped.
  CHECK(f.column(id, "message") ==
        "Field 'shape' of 'type' is required but missing.\n\\x1b]0;pwned\\x07 \\xff end");
  std::string tb = *f.column(id, "traceback");
  CHECK(tb.size() == kMaxTracebackBytes + 3);
  CHECK(tb.substr(tb.size() - 3) == "...");
  CHECK(tb.rfind("Traceback (most recent call last):\n", 0) == 0);
  // Escaping is idempotent: text a producer made safe is stored as it is.
  RunVerdict again = row;
  again.message = *f.column(id, "message");
  CHECK(f.column(store_run(f.db, again, {f.issue, std::nullopt, std::nullopt}), "message") ==
        f.column(id, "message"));

  RunVerdict quiet;  // nothing to say: NULL, as on runs stored before migration 0013
  quiet.verdict = "not_reproduced";
  std::int64_t q = store_run(f.db, quiet, {f.issue, std::nullopt, std::nullopt});
  CHECK(f.column(q, "message") == std::nullopt);
  CHECK(f.column(q, "traceback") == std::nullopt);

  auto runs = issue_repro_runs(f.db, f.issue);
  REQUIRE(runs.size() == 3);
  CHECK(runs[0].id == id);
  CHECK(runs[0].message == f.column(id, "message"));
  CHECK(runs[0].signature == row.signature);
  CHECK(runs[2].message == std::nullopt);
  CHECK_FALSE(runs[2].script);

  // What people see under the verdict line: each stored line printable on its own.
  auto lines = cli::message_lines(*runs[0].message,
                                  "Traceback (most recent call last):\n  a\n  b\n  c", 12, 2);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] == "message: Field 'shape' of 'type' is required but missing.");
  CHECK(lines[1] == "         \\x1b]0;pwned\\x07 \\xff end");
  CHECK(lines[2] == "traceback: Traceback (most recent call last):");
  CHECK(lines[3] == "             a");
  CHECK(lines[4] == "           ... 2 more lines (--json shows all)");
}

TEST_CASE("verdict store: model verdicts store the checker's own words as the message") {
  StoreFixture f;
  RunVerdict mv = model_run_verdict("");
  mv.verdict = "crash_reproduced";
  mv.step = "checker";
  mv.message = "Field 'shape' of 'type' is required but missing.";
  mv.signature = "field '<name>' of '<name>' is required but missing.";
  std::int64_t id = store_run(f.db, mv, {f.issue, std::nullopt, std::nullopt});
  CHECK(f.column(id, "message") == mv.message);
  CHECK(f.column(id, "signature") == mv.signature);
  auto j = model_run_json(mv);
  CHECK(j["message"] == mv.message);
  CHECK(j["error"] == mv.message);  // the key model results had first
  CHECK(j["traceback"].is_null());

  ScriptReproResult sr;
  sr.verdict.verdict = "not_runnable";
  sr.verdict.step = "script";
  sr.verdict.reason = "script failed before export: NameError";
  sr.verdict.message = "NameError: name 'foo' is not defined";
  sr.verdict.traceback = "Traceback (most recent call last):\n  File \"repro_script.py\", line 3";
  std::int64_t s = store_run(f.db, sr.verdict, {f.issue, std::nullopt, sr.script});
  CHECK(f.column(s, "message") == sr.verdict.message);
  CHECK(f.column(s, "traceback") == sr.verdict.traceback);
}

TEST_CASE("verdict store: the web's issue JSON carries each run's message and traceback") {
  StoreFixture f;
  RunVerdict row;
  row.verdict = "not_runnable";
  row.reason = "script failed before export: NameError";
  row.message = "NameError: name 'foo' is not defined";
  row.traceback = "Traceback (most recent call last):\n  File \"repro_script.py\", line 3";
  store_run(f.db, row, {f.issue, std::nullopt, std::nullopt});
  RunVerdict quiet;
  quiet.verdict = "not_reproduced";
  store_run(f.db, quiet, {f.issue, std::nullopt, std::nullopt});
  Taxonomy tax = Taxonomy::load(std::string(CONVFAIL_SOURCE_DIR) + "/data");
  nlohmann::json j = web::issue_json(f.db, tax, "o/r", "7", "", true);
  REQUIRE(j["repro"].size() == 2);
  CHECK(j["repro"][0]["message"] == row.message);
  CHECK(j["repro"][0]["traceback"] == row.traceback);
  CHECK(j["repro"][1]["message"].is_null());
  CHECK(j["repro"][1]["traceback"].is_null());
}

TEST_CASE("verdict store: an issue's latest verdicts, one per program") {
  StoreFixture f;
  f.db.exec(
      "INSERT INTO artifacts(issue_id, kind, url) VALUES (1, 'model', 'https://e.org/b.onnx')");
  std::int64_t other_artifact = f.db.last_insert_id();
  f.db.exec("INSERT INTO issues(repo_id, number, title) VALUES (1, 8, 'u')");
  std::int64_t other_issue = f.db.last_insert_id();
  auto run = [&](std::optional<std::int64_t> issue, std::optional<std::int64_t> artifact,
                 const std::string& path, const std::string& verdict, const std::string& source) {
    RunVerdict row;
    row.model_path = path;
    row.verdict = verdict;
    row.step = verdict == "crash_reproduced" ? "export" : "";
    row.signature = verdict == "crash_reproduced" ? "boom" : "";
    std::optional<ScriptInfo> script;
    if (!source.empty()) script = ScriptInfo{source, "", "", 0};
    return store_run(f.db, row, {issue, artifact, script});
  };
  run(f.issue, std::nullopt, "", "not_runnable", "body");  // script, superseded
  std::int64_t script = run(f.issue, std::nullopt, "", "crash_reproduced", "body");
  run(f.issue, f.artifact, "/m/a.onnx", "crash_reproduced", "");  // model a, superseded
  std::int64_t model_a = run(f.issue, f.artifact, "/m/a.onnx", "not_reproduced", "");
  std::int64_t model_b = run(f.issue, other_artifact, "/m/b.onnx", "wrong_output_reproduced", "");
  std::int64_t other = run(other_issue, std::nullopt, "", "crash_reproduced", "comments");
  run(std::nullopt, std::nullopt, "/x.onnx", "crash_reproduced", "");  // `reproduce --model`

  std::vector<StoredVerdict> v = latest_verdicts(f.db, f.issue);
  REQUIRE(v.size() == 3);
  CHECK(v[0].id == script);
  CHECK(v[0].kind == "script");
  CHECK(v[0].verdict == "crash_reproduced");
  CHECK(v[0].step == "export");
  CHECK(v[0].signature == "boom");
  CHECK(v[1].id == model_a);
  CHECK(v[1].kind == "model");
  CHECK(v[1].verdict == "not_reproduced");
  CHECK(v[1].step.empty());
  CHECK(v[2].id == model_b);
  auto all = latest_verdicts_by_issue(f.db);
  CHECK(all.size() == 2);
  CHECK(all.at(f.issue).size() == 3);
  REQUIRE(all.at(other_issue).size() == 1);
  CHECK(all.at(other_issue)[0].id == other);
  CHECK(latest_verdicts(f.db, 99).empty());
}
