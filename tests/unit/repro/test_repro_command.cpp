// The entry points of `reproduce` return what ran (the command line prints it): the models or
// scripts in order, each verdict, the counts, and the callbacks as they go; and they store it.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/db.h"
#include "core/error.h"
#include "core/migrations.h"
#include "repro/repro_command.h"
#include "repro/reproduce_all.h"
#include "repro/scripts/script_command.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::repro;

namespace {

struct IssuesFixture {
  test::TempDir dir;
  Db db{dir.file("c.db")};
  IssuesFixture() {
    migrate(db);
    db.exec("INSERT INTO repositories(full_name) VALUES ('o/r')");
    // Two issues whose program names torch but neither imports a module nor exports: each is
    // not_runnable "no export call" before anything runs.
    for (int n : {7, 8})
      db.exec("INSERT INTO issues(repo_id, number, title, author, body) VALUES (1, " +
              std::to_string(n) + ", 't', 'ann', '```python\nx = \"torch\"\nprint(x)\n```')");
  }
};

// A model evaluator that must not be called.
RunVerdict never(const HarnessExport&) {
  FAIL("no model was exported");
  return {};
}

}  // namespace

TEST_CASE("reproduce: an issue without a fetched model is one not_runnable model, returned") {
  IssuesFixture f;
  ReproduceRequest req;
  req.issue = "o/r#7";
  std::vector<std::tuple<int, std::size_t, std::string>> started;
  std::vector<std::string> done;
  ReproduceProgress progress;
  progress.starting = [&](int n, std::size_t cases, const std::string& name) {
    started.emplace_back(n, cases, name);
  };
  progress.done = [&](const ReproducedModel& m) { done.push_back(m.verdict.verdict); };
  ReproduceResult r = run_reproduce(req, &f.db, progress);
  CHECK_FALSE(r.suite);
  REQUIRE(r.models.size() == 1);
  CHECK(r.models[0].issue_ref == "o/r#7");
  CHECK(r.models[0].name == "-");
  CHECK(r.models[0].verdict.verdict == kNotRunnable);
  CHECK(r.models[0].verdict.reason == "no fetched model artifact (run artifacts scan and fetch)");
  CHECK(r.models[0].verdict.max_abs_error == 0.0);  // a model run's numbers start at 0
  CHECK(r.verdicts == std::map<std::string, int>{{kNotRunnable, 1}});
  CHECK(started == std::vector<std::tuple<int, std::size_t, std::string>>{{1, 0, "o/r#7"}});
  CHECK(done == std::vector<std::string>{kNotRunnable});
  CHECK(f.db.scalar("SELECT count(*) FROM repro_runs WHERE verdict = 'not_runnable' AND "
                    "max_abs_error = 0 AND script_source IS NULL") == 1);

  req.issue = "o/r#99";
  CHECK_THROWS_AS(run_reproduce(req, &f.db), UserError);
  CHECK(f.db.scalar("SELECT count(*) FROM repro_runs") == 1);
}

TEST_CASE("reproduce --scripts: each program's verdict, the counts, the callbacks, the rows") {
  IssuesFixture f;
  ScriptsCommandArgs args;
  args.issues = {"o/r#7", "https://github.com/o/r/issues/8"};
  std::vector<std::string> started, done;
  ScriptsProgress progress;
  progress.starting = [&](int n, std::size_t selected, const std::string& ref) {
    started.push_back(std::to_string(n) + "/" + std::to_string(selected) + " " + ref);
  };
  progress.done = [&](const ScriptedProgram& p) { done.push_back(p.name); };
  ScriptsCommandResult r = run_scripts_command(&f.db, args, never, progress);
  CHECK(started == std::vector<std::string>{"1/2 o/r#7", "2/2 o/r#8"});
  CHECK(done == std::vector<std::string>{"o/r#7", "o/r#8"});
  REQUIRE(r.programs.size() == 2);
  CHECK(r.programs[1].result.verdict.verdict == kNotRunnable);
  CHECK(r.programs[1].result.verdict.reason == "no export call");
  CHECK_FALSE(r.programs[1].result.verdict.max_abs_error.has_value());  // nothing compared
  CHECK(r.programs[1].result.script.source == "body");
  CHECK(r.verdicts == std::map<std::string, int>{{kNotRunnable, 2}});
  CHECK(f.db.scalar("SELECT count(*) FROM repro_runs WHERE script_source = 'body' AND "
                    "max_abs_error IS NULL") == 2);

  args.limit = 1;
  args.store = false;
  CHECK(run_scripts_command(&f.db, args, never).programs.size() == 1);
  CHECK(f.db.scalar("SELECT count(*) FROM repro_runs") == 2);  // not stored

  ScriptsCommandArgs file;
  file.script_file = f.dir.file("s.py");
  std::ofstream(file.script_file) << "print('torch')\n";
  ScriptsCommandResult one = run_scripts_command(nullptr, file, never);
  REQUIRE(one.programs.size() == 1);
  CHECK(one.programs[0].name == file.script_file);
  CHECK(one.programs[0].result.script.source == "file");
  CHECK(one.verdicts == std::map<std::string, int>{{kNotRunnable, 1}});

  ScriptsCommandArgs none;
  CHECK_THROWS_AS(run_scripts_command(&f.db, none, never), UsageError);
}

TEST_CASE("reproduce --all: scans, runs the scripts and returns its summary as data") {
  IssuesFixture f;
  f.db.exec(
      "INSERT INTO issues(repo_id, number, title, author, body) VALUES (1, 9, 't', 'ann', "
      "'no code here')");
  ReproduceRequest req;
  req.all = true;
  std::vector<std::string> started, scripts;
  ReproduceProgress progress;
  progress.starting = [&](int n, std::size_t, const std::string& name) {
    started.push_back(std::to_string(n) + " " + name);
  };
  progress.script_done = [&](const ScriptedProgram& p) { scripts.push_back(p.name); };
  ReproduceResult r = run_reproduce(req, &f.db, progress);
  CHECK(r.models.empty());
  REQUIRE(r.scripts.size() == 2);
  CHECK(r.scripts[0].result.verdict.reason == "no export call");
  CHECK(r.verdicts == std::map<std::string, int>{{kNotRunnable, 2}});
  CHECK(started == std::vector<std::string>{"1 o/r#7", "2 o/r#8"});
  CHECK(scripts == std::vector<std::string>{"o/r#7", "o/r#8"});
  REQUIRE(r.summary);
  CHECK(r.summary->scanned_issues == 3);
  CHECK(r.summary->scripts == 2);
  CHECK(r.summary->models == 0);
  CHECK(r.summary->skipped == std::map<std::string, int>{{kNothingFound, 1}});
  CHECK(r.summary->limited == 0);
  CHECK(r.summary->next.empty());
  CHECK(f.db.scalar("SELECT count(*) FROM repro_runs") == 2);

  // --models: nothing runs; the scripts are named as left out, and what to run next.
  req.models_only = true;
  r = run_reproduce(req, &f.db);
  CHECK(r.scripts.empty());
  REQUIRE(r.summary);
  CHECK(r.summary->skipped.at(kScriptNotSelected) == 2);
  CHECK(r.summary->next == "convfail reproduce --all (without --models)");

  // --limit 1: one script, the other issue counted as not reached.
  req.models_only = false;
  req.limit = 1;
  r = run_reproduce(req, &f.db);
  CHECK(r.scripts.size() == 1);
  CHECK(r.summary->limited == 1);
  CHECK(f.db.scalar("SELECT count(*) FROM repro_runs") == 3);
}
