// campaign/: shards of a plan, the merge of shard databases and the comparison of two campaigns,
// on campaigns stored by SQL (no torch: tests/e2e/campaign_shard_merge.sh and
// campaign_compare.sh run real ones).
#include <doctest/doctest.h>

#include <chrono>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "campaign/analysis/campaign_compare.h"
#include "campaign/groups/groups.h"
#include "campaign/report/campaign_compare_report.h"
#include "campaign/run/campaign_merge.h"
#include "campaign/run/plan.h"
#include "campaign/run/shard.h"
#include "campaign/store/campaign_store.h"
#include "core/db.h"
#include "core/error.h"
#include "core/migrations.h"
#include "core/secrets.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::campaign;
using nlohmann::json;

namespace {

std::map<std::string, std::string>* fake_env = nullptr;
const char* fake_getenv(const char* name) {
  auto it = fake_env->find(name);
  return it == fake_env->end() ? nullptr : it->second.c_str();
}

std::string sha_of(int n) {
  std::string s = std::to_string(n);
  return std::string(64 - s.size(), 'a') + s;
}

// The store name of a model file holding "model N" (what the merge tests write): its sha256.
std::string model_sha(int n) {
  return sha256_hex("model " + std::to_string(n));
}

StoredModel row(int seq, const std::string& outcome, const std::string& signature = "",
                const std::string& sha = "") {
  StoredModel r;
  r.seq = seq;
  r.source = "synthetic";
  r.name = "synthetic-n5-s" + std::to_string(seq);
  r.nodes = 5 + seq % 3;
  r.outcome = outcome;
  r.signature = signature;
  r.model_sha256 = sha;
  return r;
}

// A campaign of `rows` in `db`, regrouped; returns its id.
std::int64_t stored_campaign(Db& db, const json& config, const std::vector<StoredModel>& rows,
                             const json& versions = {{"torch", "2.1"}}) {
  std::int64_t id = create_campaign(db, config, versions);
  store_models(db, id, rows, RowWrite::kKeep);
  regroup(db, id);
  finish_campaign(db, id);
  return id;
}

// What the merge must reproduce: every model row and every group, as text.
std::string campaign_fingerprint(Db& db, std::int64_t id) {
  std::string out;
  for (const StoredModel& r : load_models(db, id))
    out += std::to_string(r.seq) + " " + r.name + " " + r.outcome + " " +
           (r.signature.empty() ? "-" : r.signature) + " " +
           (r.model_sha256.empty() ? "-" : r.model_sha256) + "\n";
  for (const auto& g : list_groups(db, id))
    out += g["outcome"].get<std::string>() + " " + g["signature"].get<std::string>() + " " +
           g["size"].dump() + " " + g["representative_seq"].dump() + "\n";
  return out;
}

}  // namespace

TEST_CASE("shard: K/N is parsed strictly and the shards partition the plan") {
  Shard s = parse_shard("2/4");
  CHECK(s.index == 2);
  CHECK(s.count == 4);
  CHECK(s.text() == "2/4");
  for (const char* bad : {"4/4", "5/4", "0/0", "-1/4", "1/-4", "a/4", "1/", "/4", "1", "", "1/4x",
                          "1/4/5", " 1/4", "0/10001", "99999999999999999999/4"})
    CHECK_THROWS_AS(parse_shard(bad), UsageError);
  CampaignConfig c;
  c.sources = {"synthetic"};
  c.models = 23;
  auto plan = make_plan(c, json::array());
  std::multiset<int> seen;
  for (int k = 0; k < 4; ++k)
    for (const auto& t : shard_plan(plan, parse_shard(std::to_string(k) + "/4"))) {
      CHECK(t.seq % 4 == k);
      seen.insert(t.seq);
    }
  CHECK(seen.size() == plan.size());
  CHECK(std::set<int>(seen.begin(), seen.end()).size() == plan.size());
  CHECK(shard_plan(plan, Shard{}).size() == plan.size());
  CHECK(shard_json(parse_shard("1/4"), 23) ==
        json{{"index", 1}, {"count", 4}, {"plan_models", 23}});
}

TEST_CASE("shard: SLURM_ARRAY_TASK_ID/COUNT give K/N, half of them or junk is refused") {
  std::map<std::string, std::string> env;
  fake_env = &env;
  CHECK_FALSE(shard_from_slurm(fake_getenv));
  env = {{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "16"}};
  auto s = shard_from_slurm(fake_getenv);
  REQUIRE(s);
  CHECK(s->index == 3);
  CHECK(s->count == 16);
  CHECK(s->from_slurm);
  env = {{"SLURM_ARRAY_TASK_ID", "16"}, {"SLURM_ARRAY_TASK_COUNT", "16"}};  // --array=1-16
  CHECK_THROWS_AS(shard_from_slurm(fake_getenv), UsageError);
  env = {{"SLURM_ARRAY_TASK_ID", "3"}};
  CHECK_THROWS_AS(shard_from_slurm(fake_getenv), UsageError);
  env = {{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_COUNT", "4"}};
  CHECK_THROWS_AS(shard_from_slurm(fake_getenv), UsageError);
  fake_env = nullptr;
}

TEST_CASE("compare: differing settings, models matched, transitions and groups") {
  test::TempDir dir;
  Db db(dir.file("c.db"));
  migrate(db);
  json ca = {{"seed", 3}, {"opset", 16}, {"ort", "1.20.1"}};
  json cb = {{"seed", 3}, {"opset", 17}, {"ort", "1.20.1"}, {"rtol", 0.01}};
  // 0: same file, success both. 1: re-exported (another hash), success -> mismatch. 2: failed
  // before export in both, the same signature. 3: mismatch fixed. 4: only in A. 5/6: another
  // position in B, the same name.
  std::int64_t a =
      stored_campaign(db, ca,
                      {row(0, "success", "", sha_of(0)), row(1, "success", "", sha_of(1)),
                       row(2, "conversion_failure", "unsupported aten::sinh"),
                       row(3, "mismatch", "both: large float difference", sha_of(3)),
                       row(4, "success"), row(5, "ort_failure", "op (gemm) failed", sha_of(5))});
  auto moved = row(6, "ort_failure", "op (gemm) failed", sha_of(56));
  moved.name = row(5, "").name;
  std::int64_t b = stored_campaign(db, cb,
                                   {row(0, "success", "", sha_of(0)),
                                    row(1, "mismatch", "both: large float difference", sha_of(11)),
                                    row(2, "conversion_failure", "unsupported aten::sinh"),
                                    row(3, "success", "", sha_of(33)), moved},
                                   {{"torch", "2.2"}});
  Comparison c = compare_campaigns(load_compare_side(db, a, "A", "x.db"),
                                   load_compare_side(db, b, "B", "x.db"));
  std::map<std::string, std::pair<std::string, std::string>> diff;
  for (const auto& d : c.differences) diff[d.setting] = {d.a, d.b};
  CHECK(diff.size() == 3);
  CHECK(diff["opset"] == std::make_pair(std::string("16"), std::string("17")));
  CHECK(diff["rtol"] == std::make_pair(std::string("-"), std::string("0.01")));
  CHECK(diff["torch version"] == std::make_pair(std::string("2.1"), std::string("2.2")));
  CHECK(c.matched == 5);
  CHECK(c.by_hash == 1);
  CHECK(c.by_position == 3);
  CHECK(c.by_name == 1);
  CHECK(c.only_a == 1);
  CHECK(c.only_b == 0);
  CHECK(c.changed == 2);
  CHECK(c.regressed == 1);
  REQUIRE(c.transitions.size() >= 2);
  std::set<std::pair<std::string, std::string>> changed;
  for (const auto& t : c.transitions)
    if (t.from != t.to) changed.insert({t.from, t.to});
  CHECK(changed == std::set<std::pair<std::string, std::string>>{{"success", "mismatch"},
                                                                 {"mismatch", "success"}});
  CHECK(c.transitions[0].from != c.transitions[0].to);  // changes first
  // The mismatch group of A (seq 3) and of B (seq 1) have the same signature: still failing.
  CHECK(c.count("new") == 0);
  CHECK(c.count("still") == 3);
  CHECK(c.count("fixed") == 0);
  CHECK_FALSE(c.no_change());

  // A new signature in B is a new group; A's mismatch signature gone is a fixed one.
  std::int64_t b2 = stored_campaign(
      db, {{"seed", 4}},
      {row(1, "mismatch", "optimised: non-finite value", sha_of(11)), row(3, "success")});
  Comparison c2 =
      compare_campaigns(load_compare_side(db, a, "A", ""), load_compare_side(db, b2, "B", ""));
  REQUIRE(c2.count("new") == 1);
  const ComparedGroup& g = c2.groups.front();
  CHECK(g.status == "new");
  CHECK(g.signature == "optimised: non-finite value");
  CHECK(g.size_a == 0);
  CHECK(g.size_b == 1);
  CHECK(g.representative == "synthetic-n5-s1");
  CHECK(g.other_side == std::map<std::string, int>{{"success", 1}});
  // A's other groups: B ran their models (seq 3 succeeds) or did not plan them (seq 2, 5).
  CHECK(c2.count("fixed") == 1);
  CHECK(c2.count("not_comparable") == 2);
  for (const auto& x : c2.groups)
    if (x.status == "not_comparable")
      CHECK(x.reasons == std::map<std::string, int>{{"not in B", 1}});
  json j = comparison_json(c2);
  CHECK(j["new_groups"] == 1);
  CHECK(j["groups"][0]["status"] == "new");
  std::string md = comparison_report(c2, reports::ReportFormat::kMarkdown);
  CHECK(md.find("new in B") != std::string::npos);
  CHECK(md.find("What differs") < md.find("Models"));  // the differences come first
  std::string csv = comparison_report(c2, reports::ReportFormat::kCsv);
  CHECK(csv.find("transitions,success -> mismatch,Models,1") != std::string::npos);

  // A campaign compared with itself: nothing differs, nothing changed.
  Comparison same =
      compare_campaigns(load_compare_side(db, a, "A", ""), load_compare_side(db, a, "B", ""));
  CHECK(same.differences.empty());
  CHECK(same.no_change());
  CHECK(same.matched == 6);
  CHECK(same.count("still") == 3);
  CHECK(comparison_report(same, reports::ReportFormat::kMarkdown).find("No change") !=
        std::string::npos);
}

TEST_CASE("compare: a model one side did not run is not comparable and never trips the gate") {
  test::TempDir dir;
  Db db(dir.file("c.db"));
  migrate(db);
  const std::string fp16 = "not runnable: runner: Unsupported tensor type: float16";
  auto with = [](StoredModel m, const std::string& message) {
    m.message = message;
    return m;
  };
  std::int64_t a =
      stored_campaign(db, {{"ort", "1.14.0"}},
                      {with(row(0, "invalid", fp16), fp16), row(1, "success"), row(2, "success"),
                       with(row(3, "invalid", fp16), fp16 + "\nsecond line"),
                       with(row(4, "ort_failure", "type error: add bound to double and float"),
                            "Type Error: Type parameter (T) of Optype (Add) bound to different "
                            "types")});
  const std::string softplus = "onnxruntime: no kernel for Softplus(1) on float64";
  std::int64_t b = stored_campaign(
      db, {{"ort", "1.31.1"}},
      {with(row(0, "ort_failure", softplus), "Could not find an implementation for Softplus(1)"),
       with(row(1, "ort_failure", softplus), "Could not find an implementation for Softplus(1)"),
       with(row(2, "mismatch", "both: n of n elements differ"), "mismatch (both): 3 of 8 differ"),
       with(row(3, "ort_failure", "onnxruntime: no kernel for Erf(13) on float64"),
            "Could not find an implementation for Erf(13)"),
       with(row(4, "ort_failure", softplus), "Could not find an implementation for Softplus(1)")});
  Comparison c =
      compare_campaigns(load_compare_side(db, a, "A", ""), load_compare_side(db, b, "B", ""));
  // Seq 0 and 3: A could not run them.
  CHECK(c.not_comparable == 2);
  CHECK(c.not_comparable_reasons == std::map<std::string, int>{{"A: invalid: " + fp16, 2}});
  CHECK(c.changed == 2);    // seq 1 and 2 only (seq 4 fails in both)
  CHECK(c.regressed == 2);  // success in A, failing in B
  std::map<std::string, const ComparedGroup*> by_sig;
  for (const auto& g : c.groups) by_sig[g.signature] = &g;
  // Softplus: A ran seq 1 (success): new (seq 4 failed in A another way). Erf: its one model A
  // did not run: not comparable.
  CHECK(by_sig.at(softplus)->status == "new");
  CHECK(by_sig.at(softplus)->other_side ==
        std::map<std::string, int>{{"invalid", 1}, {"ort_failure", 1}, {"success", 1}});
  // A's type error group: its one model fails in B too, another way: no fix, a changed failure.
  CHECK(by_sig.at("type error: add bound to double and float")->status == "changed");
  CHECK(by_sig.at("onnxruntime: no kernel for Erf(13) on float64")->status == "not_comparable");
  CHECK(by_sig.at("onnxruntime: no kernel for Erf(13) on float64")->reasons ==
        std::map<std::string, int>{{"A: invalid: " + fp16, 1}});
  CHECK(c.count("new") == 2);  // Softplus and the mismatch
  // Groups are shown by their representative's message as said, not the key.
  CHECK(by_sig.at("both: n of n elements differ")->message == "mismatch (both): 3 of 8 differ");
  std::string md = comparison_report(c, reports::ReportFormat::kMarkdown);
  CHECK(md.find("not comparable") != std::string::npos);
  CHECK(md.find("mismatch (both): 3 of 8 differ") != std::string::npos);
  CHECK(comparison_json(c)["not_comparable_groups"] == 1);
  CHECK(comparison_json(c)["changed_groups"] == 1);

  // A group whose every model failed in A another way (an earlier failure hid it): not new.
  std::int64_t a3 = stored_campaign(
      db, {{"ort", "1.14.0"}, {"seed", 3}},
      {with(row(0, "ort_failure", "type error: add"), "Type Error: Add bound to double, float")});
  std::int64_t b3 = stored_campaign(
      db, {{"ort", "1.31.1"}, {"seed", 3}},
      {with(row(0, "ort_failure", softplus), "Could not find an implementation for Softplus(1)")});
  Comparison c3 =
      compare_campaigns(load_compare_side(db, a3, "A", ""), load_compare_side(db, b3, "B", ""));
  CHECK(c3.count("new") == 0);
  CHECK(c3.count("changed") == 2);  // B's Softplus group and A's type error group

  // A side whose every model of a group was not run: the gate passes.
  std::int64_t a2 =
      stored_campaign(db, {{"ort", "1.14.0"}, {"seed", 2}}, {with(row(0, "invalid", fp16), fp16)});
  std::int64_t b2 = stored_campaign(
      db, {{"ort", "1.31.1"}, {"seed", 2}},
      {with(row(0, "ort_failure", softplus), "Could not find an implementation for Softplus(1)")});
  Comparison c2 =
      compare_campaigns(load_compare_side(db, a2, "A", ""), load_compare_side(db, b2, "B", ""));
  CHECK(c2.count("new") == 0);
  CHECK(c2.count("not_comparable") == 1);
  CHECK(c2.regressed == 0);
  CHECK(c2.complete());
}

namespace {

// Two in-memory sides of n models, each its own group on both sides, half of them new in B; the
// seconds compare_campaigns takes on them (the comparison, not the store, is measured).
double seconds_to_compare(int n, Comparison* out) {
  CompareSide a, b;
  a.label = "A";
  b.label = "B";
  a.groups = b.groups = json::array();
  for (int i = 0; i < n; ++i) {
    // Odd models fail the same way on both sides; even ones succeed in A and fail in B.
    const bool same = i % 2;
    const std::string name = "synthetic-n5-s" + std::to_string(i);
    const std::string sig = "sig " + std::to_string(i);
    a.models.push_back({i, name, "", same ? "ort_failure" : "success", same ? sig : "", ""});
    b.models.push_back({i, name, "", "ort_failure", sig, ""});
    const json group = {{"id", i + 1},
                        {"outcome", "ort_failure"},
                        {"signature", sig},
                        {"size", 1},
                        {"representative_seq", i}};
    if (same) a.groups.push_back(group);
    b.groups.push_back(group);
  }
  auto t0 = std::chrono::steady_clock::now();
  *out = compare_campaigns(std::move(a), std::move(b));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("compare: linear in groups (each group's models found through one index)") {
  // Quadratic, 12,000 groups took 1.33 s and 24,000 4.42 s on an idle machine: 4 times the
  // groups took 16 times as long. Measured back to back, so the machine's load cancels out.
  Comparison small, large;
  double t_small = seconds_to_compare(6000, &small);
  double t_large = seconds_to_compare(24000, &large);
  CHECK(large.count("new") == 12000);
  CHECK(large.count("still") == 12000);
  CHECK(large.count("fixed") == 0);
  MESSAGE("compare of 6,000 groups " << t_small << " s, of 24,000 " << t_large << " s");
  CHECK(t_large < 9 * std::max(t_small, 1e-3));
}

TEST_CASE("merge: shards become the whole plan's campaign, idempotently, another plan refused") {
  test::TempDir dir;
  json whole = {{"seed", 3}, {"models", 6}, {"ort", "1.20.1"}};
  auto shard_config = [&](int k) {
    json c = whole;
    c["shard"] = {{"index", k}, {"count", 3}, {"plan_models", 6}};
    return c;
  };
  std::vector<StoredModel> all = {row(0, "success", "", model_sha(0)),
                                  row(1, "mismatch", "both: integer output", model_sha(1)),
                                  row(2, "conversion_failure", "unsupported aten::sinh"),
                                  row(3, "mismatch", "both: integer output", model_sha(3)),
                                  row(4, "success", "", model_sha(4)),
                                  row(5, "ort_failure", "op (gemm)", model_sha(5))};
  // Shard k in its own database, with its model files in its own store.
  std::vector<std::string> dbs;
  for (int k = 0; k < 3; ++k) {
    std::string sub = dir.file("s" + std::to_string(k));
    std::filesystem::create_directories(sub);
    dbs.push_back(sub + "/shard.db");
    Db db(dbs.back());
    migrate(db);
    std::vector<StoredModel> rows;
    for (const auto& r : all)
      if (r.seq % 3 == k) {
        rows.push_back(r);
        if (!r.model_sha256.empty()) {
          std::string folder = model_store_for(dbs.back()) + "/" + r.model_sha256;
          std::filesystem::create_directories(folder);
          std::ofstream(folder + "/model.onnx") << "model " << r.seq;
        }
      }
    stored_campaign(db, shard_config(k), rows);
  }
  Db one(dir.file("one.db"));
  migrate(one);
  std::int64_t single = stored_campaign(one, whole, all);

  Db into(dir.file("all.db"));
  migrate(into);
  // Two shards: reported missing, not finished.
  MergeSummary m = merge_shards({dbs[0], dbs[2]}, into, dir.file("all.db"));
  CHECK(m.created);
  CHECK(m.added == 4);
  CHECK(m.missing == 2);
  CHECK(m.missing_shards == std::vector<int>{1});
  CHECK_FALSE(m.finished);
  CHECK(m.files_copied == 3);
  m = merge_shards({dbs[1]}, into, dir.file("all.db"));
  CHECK_FALSE(m.created);
  CHECK(m.added == 2);
  CHECK(m.finished);
  CHECK(m.missing == 0);
  CHECK(load_campaign(into, m.campaign).config == whole);
  CHECK(campaign_fingerprint(into, m.campaign) == campaign_fingerprint(one, single));
  CHECK(std::filesystem::is_regular_file(model_store_for(dir.file("all.db")) + "/" + model_sha(1) +
                                         "/model.onnx"));
  // Merging everything again adds nothing.
  std::string before = campaign_fingerprint(into, m.campaign);
  m = merge_shards(dbs, into, dir.file("all.db"));
  CHECK(m.added == 0);
  CHECK(m.already == 6);
  CHECK(m.files_copied == 0);
  CHECK(campaign_fingerprint(into, m.campaign) == before);
  CHECK(into.scalar("SELECT count(*) FROM campaigns") == 1);

  // A shard of another seed, another release, another N: refused, naming the difference.
  auto refused = [&](json config, const std::string& expect) {
    std::string path = dir.file("other.db");
    std::filesystem::remove(path);
    Db db(path);
    migrate(db);
    stored_campaign(db, config, {});
    try {
      merge_shards({dbs[0], path}, into, dir.file("all.db"));
      FAIL("merged a shard of another plan");
    } catch (const UserError& e) {
      CHECK(std::string(e.what()).find(expect) != std::string::npos);
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
    }
  };
  json other = shard_config(1);
  other["seed"] = 4;
  refused(other, "seed 4, not 3");
  other = shard_config(1);
  other["ort"] = "1.19.2";
  refused(other, "ort 1.19.2, not 1.20.1");
  other = shard_config(1);
  other["shard"]["count"] = 4;
  refused(other, "shard count 4, not 3");
  CHECK(campaign_fingerprint(into, m.campaign) == before);

  // Hostile rows: a hash that is a path, a seq of another shard; nothing written.
  auto hostile = [&](StoredModel r, const std::string& expect) {
    std::string path = dir.file("hostile.db");
    std::filesystem::remove(path);
    Db db(path);
    migrate(db);
    stored_campaign(db, shard_config(0), {r});
    CHECK_THROWS_WITH_AS(merge_shards({path}, into, dir.file("all.db")),
                         doctest::Contains(expect.c_str()), UserError);
  };
  hostile(row(0, "success", "", std::string("../../../../etc")), "malformed model_sha256");
  hostile(row(1, "success"), "not a model of this shard");
  hostile(row(0, "success", "", sha_of(999)), "its files are not in");
  CHECK(campaign_fingerprint(into, m.campaign) == before);
  CHECK_THROWS_WITH_AS(merge_shards({dir.file("one.db")}, into, dir.file("all.db")),
                       doctest::Contains("holds no shard campaign"), UserError);
}

TEST_CASE("compare: filtered draws of two support matrices are matched by exported model only") {
  test::TempDir dir;
  Db db(dir.file("c.db"));
  migrate(db);
  // The same plan positions and names, drawn from two releases' matrices: other programs.
  std::int64_t a =
      stored_campaign(db, {{"support_matrix", {{"onnxruntime", "1.14.0"}}}},
                      {row(0, "success", "", sha_of(0)), row(1, "success", "", sha_of(1))});
  std::int64_t b = stored_campaign(
      db, {{"support_matrix", {{"onnxruntime", "1.31.1"}}}},
      {row(0, "success", "", sha_of(0)), row(1, "ort_failure", "no kernel", sha_of(11))});
  Comparison c =
      compare_campaigns(load_compare_side(db, a, "A", ""), load_compare_side(db, b, "B", ""));
  CHECK(c.by_hash == 1);
  CHECK(c.by_position == 0);  // seq 1 is another program on each side
  CHECK(c.only_a == 1);
  CHECK(c.regressed == 0);
  CHECK(c.count("new") == 0);
  CHECK(c.count("not_comparable") == 1);
  CHECK(comparison_report(c, reports::ReportFormat::kMarkdown).find("different support matrices") !=
        std::string::npos);
  // The same draw (both unfiltered): matched by position as before.
  std::int64_t b2 =
      stored_campaign(db, {{"seed", 2}}, {row(1, "ort_failure", "no kernel", sha_of(11))});
  std::int64_t a2 = stored_campaign(db, {{"seed", 2}}, {row(1, "success", "", sha_of(1))});
  Comparison c2 =
      compare_campaigns(load_compare_side(db, a2, "A", ""), load_compare_side(db, b2, "B", ""));
  CHECK(c2.by_position == 1);
  CHECK(c2.count("new") == 1);
}
