// What `reproduce` and `bisect` print from the results the library returns: the text lines, the
// messages under them, the totals and summaries, the JSON documents and the events on stderr.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/bisect_output.h"
#include "cli/repro_output.h"

using namespace convfail;
using namespace convfail::cli;
using nlohmann::json;

namespace {

repro::RunVerdict wrong_output() {
  repro::RunVerdict v = repro::model_run_verdict("/m/model.onnx");
  v.verdict = "wrong_output_reproduced";
  v.step = "compare";
  v.output_name = "y";
  v.signature = "output y vs reference: 1 of 2 elements differ";
  v.max_abs_error = 0.125;
  v.max_rel_error = 0.0625;
  return v;
}

repro::RunVerdict crash(const std::string& message) {
  repro::RunVerdict v = repro::model_run_verdict("/s/case/model.onnx");
  v.verdict = "crash_reproduced";
  v.step = "session";
  v.signature = "boom \x1b[2J";
  v.message = message;
  return v;
}

}  // namespace

// A model line is made printable twice (the line, then ResultOutput): an escape sequence from
// outside shows as \\x1b, as `reproduce` has always printed it.
TEST_CASE("reproduce output: issue and --model lines, the message under them, the totals") {
  std::ostringstream out;
  ResultOutput output(OutputFormat::kText, out);
  repro::ReproduceResult r;
  r.models = {{"model.onnx", "o/r#1", "", wrong_output()},
              {"/m/bad.onnx", "", "", crash("line one\nline two")}};
  r.verdicts = {{"wrong_output_reproduced", 1}, {"crash_reproduced", 1}};
  for (const auto& m : r.models) print_reproduced(output, m);
  finish_reproduce(output, r, out);
  CHECK(out.str() ==
        "o/r#1  model.onnx  wrong_output_reproduced [compare]  output y vs reference: 1 of 2 "
        "elements differ  max_abs=0.125 max_rel=0.0625\n"
        "/m/bad.onnx  crash_reproduced [session]  boom \\\\x1b[2J\n"
        "    message: line one\n"
        "             line two\n");

  std::ostringstream doc;
  ResultOutput json_output(OutputFormat::kJson, doc);
  for (const auto& m : r.models) print_reproduced(json_output, m);
  finish_reproduce(json_output, r, doc);
  json j = json::parse(doc.str());
  CHECK(j["totals"] == json{{"total", 2}, {"wrong_output_reproduced", 1}, {"crash_reproduced", 1}});
  CHECK(j["results"][0]["issue"] == "o/r#1");
  CHECK(j["results"][0]["model"] == "/m/model.onnx");
  CHECK(j["results"][0]["max_abs_error"] == 0.125);
  CHECK_FALSE(j["results"][1].contains("issue"));
  CHECK(j["results"][1]["error"] == "line one\nline two");
  CHECK(j["results"][1]["message"] == "line one\nline two");
  CHECK(j["results"][1]["traceback"].is_null());
}

TEST_CASE("reproduce output: --suite cases with their outcome, then the summary") {
  std::ostringstream out;
  ResultOutput output(OutputFormat::kText, out);
  repro::ReproduceResult r;
  r.suite = true;
  repro::RunVerdict pass = repro::model_run_verdict("/s/ok/model.onnx");
  pass.verdict = "not_reproduced";
  r.models = {{"ok", "", "pass", pass}, {"case", "", "fail", crash("first\nsecond\nthird")}};
  r.suite_totals.add("pass");
  r.suite_totals.add("fail");
  r.fail_signatures = {{"fail [session] boom", 1}};
  for (const auto& m : r.models) print_reproduced(output, m);
  finish_reproduce(output, r, out);
  CHECK(out.str() ==
        "pass  ok  not_reproduced  max_abs=0 max_rel=0\n"
        "fail  case  crash_reproduced [session]  boom \\\\x1b[2J\n"
        "    message: first\n"
        "             ... 2 more lines (--json shows all)\n"
        "\ntotal 2: pass 1, fail 1, not_runnable 0\n"
        "  1 x fail [session] boom\n");

  std::ostringstream lines;
  ResultOutput jsonl(OutputFormat::kJsonl, lines);
  r.runner_starts = 1;
  r.checker_starts = 2;
  for (const auto& m : r.models) print_reproduced(jsonl, m);
  finish_reproduce(jsonl, r, lines);
  std::istringstream in(lines.str());
  std::string line;
  std::vector<json> got;
  while (std::getline(in, line)) got.push_back(json::parse(line));
  REQUIRE(got.size() == 3);
  CHECK(got[1]["case"] == "case");
  CHECK(got[1]["outcome"] == "fail");
  CHECK(got[2] == json{{"totals",
                        {{"total", 2},
                         {"pass", 1},
                         {"fail", 1},
                         {"not_runnable", 0},
                         {"runner_starts", 1},
                         {"checker_starts", 2}}}});
}

TEST_CASE("reproduce output: scripts, with the traceback and the count of each verdict") {
  repro::ScriptedProgram p;
  p.name = "o/r#2";
  p.result.verdict.verdict = "not_runnable";
  p.result.verdict.step = "script";
  p.result.verdict.signature = "nameerror: name '<name>' is not defined";
  p.result.verdict.reason = "script failed before export: NameError";
  p.result.verdict.message = "NameError: name 'x' is not defined";
  p.result.verdict.traceback = "Traceback (most recent call last):\n  File \"repro_script.py\"";
  p.result.script.source = "body";
  p.result.script.blocks = 2;
  repro::ScriptsCommandResult r;
  r.programs = {p};
  r.verdicts = {{"not_runnable", 1}};
  std::ostringstream out;
  ResultOutput output(OutputFormat::kText, out);
  print_script_result(output, p);
  finish_scripts(output, r, /*script_file=*/false, out);
  CHECK(out.str() ==
        "o/r#2  not_runnable  [script]  nameerror: name '<name>' is not defined  script failed "
        "before export: NameError\n"
        "    message: NameError: name 'x' is not defined\n"
        "    traceback: Traceback (most recent call last):\n"
        "                 File \"repro_script.py\"\n"
        "1 script(s): not_runnable 1\n");
  std::ostringstream file_out;
  ResultOutput file_output(OutputFormat::kText, file_out);
  finish_scripts(file_output, r, /*script_file=*/true, file_out);
  CHECK(file_out.str().empty());  // one script file: no summary line

  p.result.verdict.max_abs_error = 0.5;  // a number only when one was measured
  std::ostringstream doc;
  ResultOutput json_output(OutputFormat::kJson, doc);
  print_script_result(json_output, p);
  finish_scripts(json_output, r, false, doc);
  json j = json::parse(doc.str());
  CHECK(j["results"][0]["max_abs_error"] == 0.5);
  CHECK(j["results"][0]["max_rel_error"].is_null());
  CHECK(j["results"][0]["blocks"] == 2);
  CHECK(j["totals"] == json{{"total", 1}, {"not_runnable", 1}});
}

TEST_CASE("bisect output: a model's releases and answer, and the events on stderr") {
  repro::BisectedModel m;
  m.label = "o/r#3  model.onnx";
  m.model = "/m/model.onnx";
  m.sha256 = "0123456789abcdef";
  m.issue_id = 3;
  m.seconds = 2.3;
  repro::BisectResult& r = m.result;
  r.releases = {"1.20.1", "1.21.0"};
  repro::ReleaseRun bad{"crash_reproduced", "session", "no kernel", "", "", false, 0};
  repro::ReleaseRun good{"not_reproduced", "", "", "", "", true, 0};
  r.tried = {{"1.20.1", {bad}, false}, {"1.21.0", {good, good}, false}};
  r.changes = {{"1.20.1", "1.21.0", "crash_reproduced", "not_reproduced", {}}};
  r.first_bad = "1.20.1";
  r.fixed_in = "1.21.0";
  r.newest_known = "1.21.0";
  r.new_runs = 1;
  r.stored_runs = 2;
  std::ostringstream out;
  print_bisect_text(out, m);
  CHECK(out.str() ==
        "o/r#3  model.onnx  (sha256 0123456789ab)\n"
        "releases 1.20.1 .. 1.21.0 (2), tried 2:\n"
        "  1.20.1  crash_reproduced [session]  no kernel\n"
        "  1.21.0  not_reproduced  (confirmed)  (stored)\n"
        "change: crash_reproduced in 1.20.1 -> not_reproduced in 1.21.0\n"
        "first bad: 1.20.1 (the oldest release tried)\n"
        "first good: 1.21.0\n"
        "regressed in: -\n"
        "still failing in the newest (1.21.0): no\n"
        "runs: 1 new, 2 stored, 2.3 s\n");

  repro::BisectRequest req;
  req.issue = "https://github.com/o/r/issues/3";
  json j = bisects_json({m}, req);
  CHECK(j["bisects"][0]["issue"] == req.issue);  // as the request named it
  CHECK(j["bisects"][0]["sha256"] == m.sha256);
  CHECK_FALSE(j["bisects"][0].contains("group"));

  using Kind = repro::BisectEvent::Kind;
  std::ostringstream err, quiet;
  for (std::ostream* s : {&err, &quiet}) {
    bool progress = s == &err;
    print_bisect_event(*s, {Kind::kSkipped, "o/r#3", "", "archive holds no .onnx model"}, progress);
    print_bisect_event(*s, {Kind::kInstalled, "1.21.0", "", "", 1, 12.7}, progress);
    print_bisect_event(*s, {Kind::kRan, "1.21.0", "not_reproduced", "", 2}, progress);
    print_bisect_event(*s, {Kind::kScriptNoModel, "o/r#3", "not_runnable", "no export call"},
                       progress);
  }
  CHECK(err.str() ==
        "bisect: o/r#3: archive holds no .onnx model\n"
        "  installed onnxruntime-node 1.21.0 (12 s)\n"
        "  1.21.0 (again): not_reproduced\n"
        "bisect: o/r#3: its repro script exported no model (not_runnable: no export call)\n");
  CHECK(quiet.str() ==  // without --progress: what was skipped only
        "bisect: o/r#3: archive holds no .onnx model\n"
        "bisect: o/r#3: its repro script exported no model (not_runnable: no export call)\n");
}

// --all's summary is data in the result; the command line prints it under the results (text)
// or beside the totals ("summary", JSON and JSON Lines).
TEST_CASE("reproduce output: --all's summary, in text and beside the totals") {
  repro::ReproduceResult r;
  r.verdicts = {{"not_runnable", 2}, {"crash_reproduced", 1}};
  repro::ReproduceSummary& s = r.summary.emplace();
  s.scanned_issues = 5;
  s.new_artifacts = 4;
  s.scripts = 3;
  s.skipped = {{"no model link, archive or script in its text", 1},
               {"its script does not use PyTorch", 2}};
  s.limited = 1;
  auto printed = [&r](OutputFormat format) {
    std::ostringstream out;
    ResultOutput output(format, out);
    finish_reproduce(output, r, out);
    return out.str();
  };
  CHECK(printed(OutputFormat::kText) ==
        "\nscanned 5 issues for artifacts (4 new)\n"
        "ran 3 scripts and 0 models: crash_reproduced 1, not_runnable 2\n"
        "left out 3 issues: 2 its script does not use PyTorch; 1 no model link, archive or "
        "script in its text\n"
        "not reached within --limit: 1 issue\n");

  s = {};
  s.skipped = {{"a script, left out by --models", 1}};
  s.next = "convfail reproduce --all (without --models)";
  r.verdicts.clear();
  CHECK(printed(OutputFormat::kText) ==
        "\nscanned 0 issues for artifacts (0 new)\nran 0 scripts and 0 models\n"
        "left out 1 issue: 1 a script, left out by --models\n"
        "next: convfail reproduce --all (without --models)\n");

  json last = json::parse(printed(OutputFormat::kJsonl));
  CHECK(last["totals"] == json{{"total", 0}});
  CHECK(last["summary"]["next"] == s.next);
  CHECK(last["summary"]["scanned"] == json{{"issues", 0}, {"new_artifacts", 0}});
  CHECK(last["summary"]["skipped"] == json{{"a script, left out by --models", 1}});

  r.summary.reset();  // an issue run: no summary
  CHECK_FALSE(json::parse(printed(OutputFormat::kJsonl)).contains("summary"));
}
