// campaign/: the plan, delta debugging, grouping and issue matching (no torch needed; the e2e
// tests tests/e2e/campaign_*.sh run real campaigns).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "campaign/groups/groups.h"
#include "campaign/run/campaign.h"
#include "campaign/run/minimise.h"
#include "campaign/run/oracle.h"
#include "campaign/run/plan.h"
#include "campaign/store/campaign_store.h"
#include "core/db.h"
#include "core/error.h"
#include "core/migrations.h"
#include "exec/compare.h"
#include "exec/signature.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::campaign;

TEST_CASE("campaign: --nodes ranges and the plan are deterministic") {
  CampaignConfig c;
  parse_nodes("15-30:5", &c);
  CHECK(node_counts(c) == std::vector<int>{15, 20, 25, 30});
  parse_nodes("7", &c);
  CHECK(node_counts(c) == std::vector<int>{7});
  CHECK_THROWS_AS(parse_nodes("30-15", &c), UsageError);
  CHECK_THROWS_AS(parse_nodes("a-b", &c), UsageError);
  parse_nodes("10-20:10", &c);
  c.sources = {"synthetic"};
  c.models = 5;
  auto p1 = make_plan(c, nlohmann::json::array());
  auto p2 = make_plan(c, nlohmann::json::array());
  REQUIRE(p1.size() == 5);
  for (std::size_t i = 0; i < p1.size(); ++i) {
    CHECK(p1[i].seq == static_cast<int>(i));
    CHECK(p1[i].name == p2[i].name);
  }
  CHECK(p1[0].nodes == 10);
  CHECK(p1[1].nodes == 20);
  CHECK(p1[2].nodes == 10);
  CHECK(p1[3].name == "synthetic-n20-s" + std::to_string(p1[3].seed));
  // The configuration is the campaign's key: a different seed is a different campaign.
  CampaignConfig d = c;
  d.seed = 2;
  CHECK(c.to_json() != d.to_json());
}

TEST_CASE("campaign: ddmin finds the failure-inducing operators, bisecting then linear") {
  std::vector<int> all;
  for (int i = 0; i < 40; ++i) all.push_back(i);
  // Fails when operators 3 and 31 are both kept.
  int calls = 0;
  auto fails = [&](const std::vector<int>& keep) {
    ++calls;
    bool a = false, b = false;
    for (int k : keep) a = a || k == 3, b = b || k == 31;
    return a && b;
  };
  int tests = 0;
  auto r = ddmin(all, fails, 1000, &tests);
  CHECK(r == std::vector<int>{3, 31});
  CHECK(tests == calls);
  CHECK(tests < 100);  // far below the 2^40 subsets
  // The budget bounds the calls; what is returned still fails.
  calls = 0;
  auto partial = ddmin(all, fails, 5, &tests);
  CHECK(tests <= 5);
  CHECK(fails(partial));
}

TEST_CASE("campaign: groups by outcome and signature, candidates from the stored issues") {
  test::TempDir dir;
  Db db(dir.file("c.db"));
  migrate(db);
  db.exec("INSERT INTO repositories(full_name) VALUES ('pytorch/pytorch')");
  db.exec(
      "INSERT INTO issues(repo_id, number, title, body) VALUES (1, 7, 'Exporting fft to ONNX', "
      "'Exporting the operator aten::fft_fft to ONNX opset version 16 is not supported')");
  db.exec(
      "INSERT INTO issues(repo_id, number, title, body) VALUES (1, 8, 'Conv export slow', "
      "'conv2d takes long in the exporter')");
  std::int64_t c = create_campaign(db, {{"k", 1}}, {{"torch", "1.13.1"}});
  auto add = [&](int seq, const std::string& outcome, const std::string& sig, int nodes) {
    ModelTask t;
    t.seq = seq;
    t.source = "synthetic";
    t.name = "synthetic-n" + std::to_string(nodes) + "-s" + std::to_string(seq);
    ModelResult r;
    r.outcome = outcome;
    r.signature = sig;
    r.nodes = nodes;
    r.message = sig;
    store_models(db, c, {model_row(t, r, "")}, RowWrite::kReplace);
  };
  const std::string fft =
      "runtimeerror: exporting the operator 'aten::fft_fft' to onnx opset version n is not "
      "supported.";
  add(0, kConversionFailure, fft, 30);
  add(1, kSuccess, "", 30);
  add(2, kConversionFailure, fft, 20);
  add(3, kOrtFailure, "[onnxruntimeerror] : n : fail : node '<name>' failed", 25);
  add(4, kConversionFailure, fft, 25);
  regroup(db, c);
  auto groups = list_groups(db, c);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0]["size"] == 3);
  CHECK(groups[0]["representative_seq"] == 2);  // the smallest model
  CHECK(groups[0]["original_nodes"] == 20);
  CHECK(db.scalar("SELECT count(*) FROM campaign_models WHERE group_id IS NOT NULL") == 4);
  CHECK(db.scalar("SELECT count(*) FROM campaign_models WHERE seq = 1 AND group_id IS NULL") == 1);
  // Regrouping is stable: same ids.
  auto id0 = groups[0]["id"];
  regroup(db, c);
  CHECK(list_groups(db, c)[0]["id"] == id0);

  auto cands = match_issues(db, fft, fft, {"Conv"});
  REQUIRE_FALSE(cands.empty());
  CHECK(cands[0].issue == "pytorch/pytorch#7");
  CHECK(cands[0].why.find("fft") != std::string::npos);
  match_groups(db, c, std::string(CONVFAIL_SOURCE_DIR) + "/data");
  groups = list_groups(db, c);
  CHECK(groups[0]["candidates"][0]["issue"] == "pytorch/pytorch#7");
  CHECK(groups[0]["labels"].is_object());
  // The query quotes every word: FTS5 syntax in a signature cannot break it.
  CHECK(match_query("a\" OR b* NEAR(", "", {}).find("NEAR(") == std::string::npos);
}

TEST_CASE("campaign: a candidate issue must name the failing operator") {
  test::TempDir dir;
  Db db(dir.file("c.db"));
  migrate(db);
  db.exec("INSERT INTO repositories(full_name) VALUES ('pytorch/pytorch')");
  // Both share the boilerplate of every unsupported-operator message; only #2 names sinh.
  db.exec(
      "INSERT INTO issues(repo_id, number, title, body) VALUES (1, 1, 'aten::cosh unsupported', "
      "'Exporting the operator aten::cosh to ONNX opset version 16 is not supported. Please feel "
      "free to request support or submit a pull request on PyTorch GitHub')");
  db.exec(
      "INSERT INTO issues(repo_id, number, title, body) VALUES (1, 2, 'sinh', 'torch.sinh fails "
      "in the exporter')");
  const std::string sinh =
      "unsupportedoperatorerror: exporting the operator 'aten::sinh' to onnx opset version n is "
      "not supported. please feel free to request support or submit a pull request on pytorch "
      "github: https:<path>";
  auto cands = match_issues(db, sinh, sinh, {"Sinh"});
  REQUIRE(cands.size() == 1);
  CHECK(cands[0].issue == "pytorch/pytorch#2");
  // An operator no issue names: no candidate, the group is new.
  std::string tanh = sinh;
  tanh.replace(tanh.find("sinh"), 4, "atanh");
  CHECK(match_issues(db, tanh, tanh, {"Atanh"}).empty());
  // "export of operator X": X is the key, not the word "operator".
  CHECK(match_query("symbolicvalueerror: unsupported: onnx export of operator adaptive_avg_pool2d, "
                    "input size not accessible.",
                    "", {})
            .rfind("(\"adaptive_avg_pool2d\") AND (", 0) == 0);
  // ONNX Runtime's operator type is the key of its failures.
  CHECK(match_query("node (<name>) op (gemm) [shapeinferenceerror] first input", "", {})
            .rfind("(\"gemm\") AND (", 0) == 0);
}

TEST_CASE("campaign: words every converter issue holds never make a candidate") {
  test::TempDir dir;
  Db db(dir.file("c.db"));
  migrate(db);
  db.exec("INSERT INTO repositories(full_name) VALUES ('pytorch/pytorch')");
  // 25 issues share the converter's words; 8 of them (a third) also say "add", one names sinh.
  for (int n = 1; n <= 25; ++n) {
    std::string body = "Exporting my model to ONNX fails with an error in torch";
    if (n <= 8) body += "; I add a tensor";
    if (n == 20) body += " at torch.sinh";
    db.exec("INSERT INTO issues(repo_id, number, title, body) VALUES (1, " + std::to_string(n) +
            ", 'onnx export problem', '" + body + "')");
  }
  CommonWords common(db, std::nullopt);
  CHECK(common("onnx"));  // the hand list
  CHECK(common("add"));   // 8 of 25 stored issues: derived from the data
  CHECK_FALSE(common("sinh"));
  CHECK(common.of({"add", "sinh", "onnx"}) == std::set<std::string>{"add", "onnx"});
  // A mismatch whose only operator is a common word: no candidate, and no query.
  const std::string mm = "mismatch optimised: small float difference";
  CHECK(match_issues(db, mm, mm, {"Add"}).empty());
  CHECK(match_query(mm, mm, {"Add"}, {"add"}).empty());
  // An error naming no operator, whose words every converter issue holds: no candidate.
  const std::string ort = "[onnxruntimeerror] : n : fail : node '<name>' failed";
  CHECK(match_issues(db, ort, ort, {}).empty());
  // The operator a single issue names is the match, and the reason says so.
  auto cands = match_issues(db, mm, mm, {"Add", "Sinh"});
  REQUIRE(cands.size() == 1);
  CHECK(cands[0].issue == "pytorch/pytorch#20");
  CHECK(cands[0].why.rfind("matched: sinh", 0) == 0);
  // Fewer than 20 issues say nothing about frequency: only the hand list is common.
  db.exec("DELETE FROM issues WHERE number > 10");
  CommonWords few(db, std::nullopt);
  CHECK(few("onnx"));
  CHECK_FALSE(few("add"));
}

TEST_CASE("campaign: another converter's issue is no candidate for a torch.onnx failure") {
  test::TempDir dir;
  Db db(dir.file("c.db"));
  migrate(db);
  const std::string sinh =
      "unsupportedoperatorerror: exporting the operator 'aten::sinh' to onnx opset version n is "
      "not supported.";
  db.exec(
      "INSERT INTO repositories(full_name) VALUES ('onnx/tensorflow-onnx'), ('pytorch/pytorch'), "
      "('acme/own-fork')");
  for (int repo = 1; repo <= 3; ++repo)
    db.exec("INSERT INTO issues(repo_id, number, title, body) VALUES (" + std::to_string(repo) +
            ", 7, 'sinh fails', 'converting sinh to ONNX fails')");
  // Without the filter all three name sinh.
  CHECK(match_issues(db, sinh, sinh, {"Sinh"}).size() == 3);
  // tf2onnx's repository is another converter's; an unknown repository may be anyone's.
  auto repos = torch_onnx_repos(db, test::taxonomy());
  REQUIRE(repos);
  CHECK(*repos == std::vector<std::string>{"acme/own-fork", "pytorch/pytorch"});
  auto cands = match_issues(db, sinh, sinh, {"Sinh"}, 5, repos);
  REQUIRE(cands.size() == 2);
  for (const auto& c : cands) CHECK(c.issue.find("tensorflow-onnx") == std::string::npos);
  // Only other converters' issues stored: no candidate, the group is new.
  CHECK(match_issues(db, sinh, sinh, {"Sinh"}, 5, std::vector<std::string>{}).empty());
  // No other converter's repository: no filter at all.
  db.exec("DELETE FROM issues WHERE repo_id = 1");
  db.exec("DELETE FROM repositories WHERE id = 1");
  CHECK_FALSE(torch_onnx_repos(db, test::taxonomy()));
}

TEST_CASE("campaign: a campaign's ONNX Runtime release is part of its key, old keys still resume") {
  test::TempDir dir;
  Db db(dir.file("c.db"));
  migrate(db);
  CampaignConfig c;
  c.sources = {"synthetic"};
  c.oracle.rtol = 1e-4;
  c.oracle.atol = 1e-6;
  c.oracle.inputs = 2;
  c.oracle.dtypes = {"float32", "int64"};
  nlohmann::json key = c.to_json();
  key["ort"] = "1.20.1";
  // The configuration a stored campaign ran with comes back from what it stored.
  CampaignConfig back = CampaignConfig::from_json(key);
  CHECK(back.to_json() == c.to_json());
  CHECK(back.sources == c.sources);
  OracleOptions o = back.oracle;
  CHECK(o.rtol == 1e-4);
  CHECK(o.atol == 1e-6);
  CHECK(o.inputs == 2);
  CHECK(o.opset == 16);
  CHECK(o.dtypes == std::vector<std::string>{"float32", "int64"});
  CHECK(o.ort_version == "1.20.1");
  CHECK(CampaignConfig::from_json(nlohmann::json::object()).oracle.ort_version.empty());
  CHECK(CampaignConfig::from_json(nlohmann::json::object()).oracle.atol == 1e-7);
  // Keys of another type (a hand-edited or hostile row) give the defaults, never a throw.
  nlohmann::json odd = key;
  odd["rtol"] = "big";
  odd["dtypes"] = {{"not", "a list"}};
  odd["perturb_export"] = 1;
  odd["nodes"] = {1, "x", 3};
  CampaignConfig d = CampaignConfig::from_json(odd);
  CHECK(d.oracle.rtol == 1e-3);
  CHECK(d.oracle.dtypes == std::vector<std::string>{"float32"});
  CHECK_FALSE(d.perturb);
  CHECK(d.nodes_min == 15);
  CHECK(CampaignConfig::from_json(nlohmann::json("text")).models == 100);

  std::int64_t a = create_campaign(db, key, {{"onnxruntime", "1.20.1"}});
  CHECK(find_campaign(db, key) == a);
  nlohmann::json other = key;
  other["ort"] = "1.31.1";
  CHECK_FALSE(find_campaign(db, other).has_value());  // another release: another campaign
  // A campaign stored before the key held the release: found by its recorded versions.
  nlohmann::json legacy = c.to_json();
  legacy["seed"] = 9;
  std::int64_t b = create_campaign(db, legacy, {{"onnxruntime", "1.31.1"}});
  nlohmann::json now = legacy;
  now["ort"] = "1.31.1";
  CHECK(find_campaign(db, now) == b);
  now["ort"] = "1.21.0";
  CHECK_FALSE(find_campaign(db, now).has_value());
}

TEST_CASE(
    "campaign: a group runs again with every stored input set and the campaign's tolerances") {
  test::TempDir dir;
  Db db(dir.file("c.db"));
  migrate(db);
  CampaignConfig c;
  c.oracle.rtol = 1e-3;
  c.oracle.atol = 1e-7;
  std::int64_t id = create_campaign(db, c.to_json(), {{"onnxruntime", "1.20.1"}});
  const std::string store = dir.file("models");
  const std::string sha(64, 'a');
  std::filesystem::create_directories(std::filesystem::path(store) / sha);
  std::ofstream(std::filesystem::path(store) / sha / "model.onnx") << "x";
  for (int k : {0, 1, 2}) {
    auto set = std::filesystem::path(store) / sha / ("set_" + std::to_string(k));
    std::filesystem::create_directories(set);
    std::ofstream(set / "input_0.pb") << "i";
    if (k < 2) std::ofstream(set / "output_0.pb") << "o";  // set_2 has no torch output
  }
  ModelTask t;
  t.seq = 0;
  t.source = "synthetic";
  t.name = "synthetic-n5-s1";
  ModelResult r;
  r.outcome = "mismatch";
  r.signature = "mismatch both: n of n elements differ";
  store_models(db, id, {model_row(t, r, sha)}, RowWrite::kReplace);
  regroup(db, id);
  std::int64_t g = db.scalar("SELECT id FROM campaign_groups");
  GroupRun run = group_run(db, g, store);
  CHECK(run.model == (std::filesystem::path(store) / sha / "model.onnx").string());
  REQUIRE(run.input_sets.size() == 2);
  CHECK(run.input_sets[1] == (std::filesystem::path(store) / sha / "set_1").string());
  CHECK(run.rtol == 1e-3);
  CHECK(run.atol == 1e-7);
  CHECK_THROWS_AS(group_run(db, g + 100, store), UserError);
}

TEST_CASE("campaign: a mismatch's signature names its kind, so one group holds one kind") {
  exec::CompareResult c;
  CHECK(mismatch_kind(c).empty());  // a match
  c.match = false;
  c.problem = "shape [2] vs expected [3]";
  CHECK(mismatch_kind(c).empty());  // says what it is
  c.problem = "1 of 1 elements differ";
  c.mismatches = 1;
  c.type = "INT64";
  c.max_abs_error = 1;
  CHECK(mismatch_kind(c) == "integer output, ");  // ArgMax's index flip
  c.type = "BOOL";
  CHECK(mismatch_kind(c) == "integer output, ");
  c.type = "FLOAT";
  c.max_abs_error = 3e-7;
  CHECK(mismatch_kind(c) == "small float difference, ");
  c.max_abs_error = 1e-3;
  CHECK(mismatch_kind(c) == "small float difference, ");
  c.max_abs_error = 0.25;
  CHECK(mismatch_kind(c) == "large float difference, ");
  c.max_abs_error = std::numeric_limits<double>::infinity();
  CHECK(mismatch_kind(c) == "non-finite value, ");
  c.type = "INT64";
  CHECK(mismatch_kind(c) == "non-finite value, ");
  // The kinds survive the signature normaliser: the same difference in other sizes is one
  // signature, another kind is another.
  auto sig = [](const std::string& kind, const std::string& problem) {
    return exec::error_signature("mismatch both: " + kind + problem);
  };
  CHECK(sig("small float difference, ", "3 of 60 elements differ") ==
        sig("small float difference, ", "12 of 1000 elements differ"));
  CHECK(sig("small float difference, ", "3 of 60 elements differ") !=
        sig("integer output, ", "3 of 60 elements differ"));
}

TEST_CASE("campaign: schema 0024 tells an invalid export from an export that raised") {
  test::TempDir dir;
  Db db(dir.file("old.db"));
  // A database as convfail left it before 0024: every checker refusal a conversion failure.
  int applied = 0;
  for (const Migration& m : migrations())
    if (m.version < 24) {
      db.exec(m.sql);
      applied = m.version;
    }
  db.exec("PRAGMA user_version = " + std::to_string(applied));
  db.exec(
      "INSERT INTO campaigns(id, config_json, versions_json) VALUES (1, '{}', '{}');"
      "INSERT INTO campaign_groups(id, campaign_id, outcome, signature, size) VALUES "
      "(1, 1, 'conversion_failure', 'unsupported aten::fft', 1),"
      "(2, 1, 'conversion_failure', '[shapeinferenceerror] matmul int16', 2),"
      "(3, 1, 'conversion_failure', 'exported graph inputs differ', 1);"
      "INSERT INTO campaign_models(campaign_id, seq, source, name, outcome, model_sha256, "
      "message, group_id) VALUES "
      "(1, 0, 'synthetic', 'a', 'conversion_failure', NULL, 'UnsupportedOperatorError: fft', 1),"
      "(1, 1, 'synthetic', 'b', 'conversion_failure', 'aa', '[ShapeInferenceError] MatMul', 2),"
      "(1, 2, 'synthetic', 'c', 'conversion_failure', 'bb', '[ShapeInferenceError] MatMul', 2),"
      "(1, 3, 'synthetic', 'd', 'conversion_failure', 'cc', "
      "'exported graph''s inputs or outputs differ from the model''s: [] -> []', 3),"
      "(1, 4, 'synthetic', 'e', 'success', 'dd', NULL, NULL);");
  migrate(db);
  auto outcome_of = [&](int seq) { return load_model(db, 1, seq)->outcome; };
  CHECK(outcome_of(0) == kConversionFailure);  // the export raised: no model file
  CHECK(outcome_of(1) == kInvalidExport);      // exported, refused by the checker
  CHECK(outcome_of(2) == kInvalidExport);
  CHECK(outcome_of(3) == kConversionFailure);  // the worker's own check of a written model
  CHECK(outcome_of(4) == kSuccess);
  std::map<std::int64_t, std::string> groups;
  for (const auto& g : load_groups(db, 1)) groups[g.id] = g.outcome;
  CHECK(groups[1] == kConversionFailure);
  CHECK(groups[2] == kInvalidExport);
  CHECK(groups[3] == kConversionFailure);
  // Every table lists the class, after conversion failures, and counts it as a failure.
  CHECK(outcome_classes()[1] == kInvalidExport);
  CHECK(std::string(outcome_title(kInvalidExport)) == "Invalid export");
  CHECK(is_failure(kInvalidExport));
  CHECK_FALSE(is_failure(kInvalid));
}
