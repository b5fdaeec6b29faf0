// campaign/run/campaign_merge: a shard is hostile input (issue 49 items 1-6). Each attack on a
// shard database or its store is refused by merge_check in one line, before anything is written.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/groups/groups.h"
#include "campaign/run/campaign_merge.h"
#include "campaign/store/campaign_store.h"
#include "core/db.h"
#include "core/error.h"
#include "core/migrations.h"
#include "core/secrets.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::campaign;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const json kWhole = {{"seed", 3}, {"models", 4}, {"ort", "1.20.1"}};

json shard_config(int k, int n) {
  json c = kWhole;
  c["shard"] = {{"index", k}, {"count", n}, {"plan_models", 4}};
  return c;
}

std::string content_sha(const std::string& content) {
  return sha256_hex(content);
}

StoredModel model_row(int seq, const std::string& outcome, const std::string& sha = "") {
  StoredModel r;
  r.seq = seq;
  r.source = "synthetic";
  r.name = "synthetic-n5-s" + std::to_string(seq);
  r.nodes = 2;
  r.outcome = outcome;
  r.model_sha256 = sha;
  r.dtypes = {"float32"};
  r.graph = {{"ops", {"Relu", "Add"}}, {"edges", {{0, 1}}}};
  r.operators = {"Relu", "Add"};
  return r;
}

// A shard database at DIR/NAME/shard.db with shard K/N's `rows`; each row's model file (holding
// "model SEQ") in its store under the row's model_sha256. Returns its path.
std::string make_shard(const test::TempDir& dir, const std::string& name, int k, int n,
                       const std::vector<StoredModel>& rows) {
  fs::create_directories(dir.file(name));
  std::string path = dir.file(name) + "/shard.db";
  Db db(path);
  migrate(db);
  std::int64_t id = create_campaign(db, shard_config(k, n), {{"torch", "2.1"}});
  store_models(db, id, rows, RowWrite::kKeep);
  regroup(db, id);
  finish_campaign(db, id);
  for (const auto& r : rows) {
    if (r.model_sha256.empty()) continue;
    std::string folder = model_store_for(path) + "/" + r.model_sha256;
    fs::create_directories(folder);
    std::ofstream(folder + "/model.onnx") << "model " << r.seq;
  }
  return path;
}

// merge_check of `shards` refuses with one line holding `expect`; the target is not created.
void refused(const test::TempDir& dir, const std::vector<std::string>& shards,
             const std::string& expect) {
  std::string into = dir.file("into/all.db");
  try {
    merge_check(shards, into);
    FAIL("merged: " << expect);
  } catch (const UserError& e) {
    std::string what = e.what();
    CHECK_MESSAGE(what.find(expect) != std::string::npos, what);
    CHECK(what.find('\n') == std::string::npos);
  }
  CHECK_FALSE(fs::exists(into));
}

}  // namespace

TEST_CASE("merge: a store folder whose model does not hash to its name is refused") {
  test::TempDir dir;
  std::string sha = content_sha("model 0");  // the row names the real model's hash
  std::string path = make_shard(dir, "s", 0, 1, {model_row(0, "success", sha)});
  merge_check({path}, dir.file("into/all.db"));  // the honest shard passes
  std::ofstream(model_store_for(path) + "/" + sha + "/model.onnx") << "forged model";
  refused(dir, {path}, "does not hash to its name");
}

TEST_CASE("store_model_files: an 'already stored' folder with a forged model is replaced") {
  test::TempDir dir;
  std::string model = dir.file("out");
  fs::create_directories(model);
  std::ofstream(model + "/model.onnx") << "model 7";
  std::ofstream(model + "/program.py") << "print('real')\n";
  std::string store = dir.file("store");
  std::string sha = content_sha("model 7");
  fs::create_directories(store + "/" + sha);
  std::ofstream(store + "/" + sha + "/model.onnx") << "forged";
  std::ofstream(store + "/" + sha + "/program.py") << "import os; os.system('evil')\n";
  CHECK(store_model_files(model, store) == sha);
  std::ifstream in(store + "/" + sha + "/program.py");
  std::string program((std::istreambuf_iterator<char>(in)), {});
  CHECK(program == "print('real')\n");
  std::ifstream m(store + "/" + sha + "/model.onnx");
  CHECK(std::string((std::istreambuf_iterator<char>(m)), {}) == "model 7");
  CHECK(std::distance(fs::directory_iterator(store), fs::directory_iterator()) == 1);
}

TEST_CASE("merge: a column of another type (a REAL seq) is refused before any write") {
  test::TempDir dir;
  std::string path = make_shard(dir, "s", 0, 1,
                                {model_row(0, "success"), model_row(1, "invalid"),
                                 model_row(2, "invalid"), model_row(3, "invalid")});
  {
    Db db(path);
    db.exec("UPDATE campaign_models SET seq = 2.5 WHERE seq = 3");
  }
  refused(dir, {path}, "model 2: seq is not of its column's type");
  {
    Db db(path);
    db.exec("UPDATE campaign_models SET seq = 3 WHERE seq = 2.5");
    db.exec("UPDATE campaign_models SET nodes = 'many' WHERE seq = 1");
  }
  refused(dir, {path}, "model 1: nodes is not of its column's type");
}

TEST_CASE("merge: JSON columns and values are checked as a worker's reply is") {
  test::TempDir dir;
  auto with = [&](const std::string& name, const std::string& set) {
    std::string path = make_shard(dir, name, 0, 1, {model_row(0, "invalid")});
    Db db(path);
    db.exec("UPDATE campaign_models SET " + set + " WHERE seq = 0");
    return path;
  };
  refused(dir, {with("a", "dtypes_json = '{\"not\":\"a list\"}'")}, "dtypes_json is not of");
  refused(dir, {with("b", "dtypes_json = '[\"float99\"]'")}, "dtype 'float99' is not one of");
  refused(dir, {with("c", "graph_json = '{\"ops\":[\"Relu\"],\"edges\":[[0,7]]}'")},
          "edge [0, 7] outside the graph's 1 nodes");
  refused(dir, {with("d", "operators_json = '[1, 2]'")}, "an operator name is not a string");
  refused(dir, {with("e", "durations_json = '{\"run\": -1}'")}, "duration of run");
  refused(dir, {with("f", "min_tolerance = 1e999")}, "min_tolerance is not a finite number");
  refused(dir, {with("g", "max_abs_diff = -1")}, "max_abs_diff is not a number >= 0");
  refused(dir, {with("h", "nodes = 99999999")}, "nodes 99999999 out of range");
}

TEST_CASE("merge: texts are cut as a run cuts them and made terminal-safe") {
  test::TempDir dir;
  StoredModel r = model_row(0, "invalid");
  r.message = std::string(40000, 'm');
  r.signature = "sig \x1b[31mred";
  std::string path = make_shard(dir, "s", 0, 1, {r});
  Db into(dir.file("all.db"));
  migrate(into);
  MergeSummary m = merge_shards({path}, into, dir.file("all.db"));
  auto stored = load_model(into, m.campaign, 0);
  REQUIRE(stored);
  CHECK(stored->message == std::string(600, 'm'));
  CHECK(stored->signature.find('\x1b') == std::string::npos);
  CHECK(stored->signature.find("red") != std::string::npos);
}

TEST_CASE("merge: two shards that stored different outcomes for a model are refused, named") {
  test::TempDir dir;
  std::string a = make_shard(dir, "a", 0, 2, {model_row(0, "invalid"), model_row(2, "invalid")});
  std::string b =
      make_shard(dir, "b", 0, 2, {model_row(0, "conversion_failure"), model_row(2, "invalid")});
  std::string same = make_shard(dir, "c", 0, 2, {model_row(0, "invalid"), model_row(2, "invalid")});
  merge_check({a, same}, dir.file("into/all.db"));  // the same rows twice: no conflict
  refused(dir, {a, b}, "1 model(s) stored with different outcomes by two shards (models 0;");
}

TEST_CASE("merge: a view or trigger in a shard is refused") {
  test::TempDir dir;
  std::string path = make_shard(dir, "s", 0, 1, {model_row(0, "invalid")});
  {
    Db db(path);
    db.exec("ALTER TABLE campaign_models RENAME TO real_models");
    db.exec(
        "CREATE VIEW campaign_models AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 "
        "FROM c) SELECT real_models.* FROM real_models, c");
  }
  refused(dir, {path}, "holds view campaign_models");
  std::string t = make_shard(dir, "t", 0, 1, {model_row(0, "invalid")});
  {
    Db db(t);
    db.exec("CREATE TRIGGER evil AFTER INSERT ON campaigns BEGIN SELECT 1; END");
  }
  refused(dir, {t}, "holds trigger evil");
}

TEST_CASE("merge: a shard store reached through a link is refused") {
  test::TempDir dir;
  std::string sha = content_sha("model 0");
  std::string path = make_shard(dir, "s", 0, 1, {model_row(0, "success", sha)});
  fs::path data = fs::path(path).parent_path() / "convfail-data";
  fs::rename(data, dir.file("elsewhere"));
  fs::create_directory_symlink(dir.file("elsewhere"), data);
  refused(dir, {path}, "is a symbolic link");
  fs::remove(data);
  fs::create_directories(data);
  fs::create_directory_symlink(dir.file("elsewhere/models"), data / "models");
  refused(dir, {path}, "is a symbolic link");
  fs::remove(data / "models");
  fs::create_directories(data / "models");
  fs::create_directory_symlink(dir.file("elsewhere/models/" + sha), data / "models" / sha);
  refused(dir, {path}, "its files are not in");
}
