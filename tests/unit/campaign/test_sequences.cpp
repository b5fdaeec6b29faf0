#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "campaign/analysis/enrichment.h"
#include "campaign/analysis/op_graph.h"
#include "campaign/analysis/sequences.h"
#include "core/error.h"

using namespace convfail;
using namespace convfail::campaign;
using nlohmann::json;

namespace {

OpGraph chain(const std::vector<std::string>& ops) {
  OpGraph g;
  g.ops = ops;
  g.succ.resize(ops.size());
  for (std::size_t i = 0; i + 1 < ops.size(); ++i) g.succ[i].push_back(static_cast<int>(i + 1));
  return g;
}

// A random DAG over a few operator types (edges go from lower to higher index).
OpGraph random_dag(std::mt19937& rng, int n) {
  static const char* kOps[] = {"Conv", "Relu", "Add", "Mul", "Sigmoid"};
  OpGraph g;
  g.succ.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) g.ops.push_back(kOps[rng() % 5]);
  for (int i = 0; i + 1 < n; ++i) {
    g.succ[static_cast<std::size_t>(i)].push_back(i + 1);
    if (i + 3 < n && rng() % 3 == 0) g.succ[static_cast<std::size_t>(i)].push_back(i + 3);
  }
  return g;
}

// The same graph with its nodes renumbered.
OpGraph permuted(const OpGraph& g, std::mt19937& rng) {
  std::vector<int> perm(g.ops.size());
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(i);
  std::shuffle(perm.begin(), perm.end(), rng);
  OpGraph p;
  p.ops.resize(g.ops.size());
  p.succ.resize(g.ops.size());
  for (std::size_t v = 0; v < g.ops.size(); ++v) {
    auto nv = static_cast<std::size_t>(perm[v]);
    p.ops[nv] = g.ops[v];
    for (int w : g.succ[v]) p.succ[nv].push_back(perm[static_cast<std::size_t>(w)]);
    std::sort(p.succ[nv].begin(), p.succ[nv].end());
  }
  return p;
}

std::vector<std::string> texts(const std::vector<SequenceFinding>& v) {
  std::vector<std::string> out;
  for (const auto& f : v)
    out.push_back(sequence_text(f.ops) + "#" + std::to_string(f.mismatched_models));
  return out;
}

std::vector<const OpGraph*> ptrs(const std::vector<OpGraph>& v) {
  std::vector<const OpGraph*> out;
  for (const auto& g : v) out.push_back(&g);
  return out;
}

}  // namespace

TEST_CASE("op graph: graph_json is parsed and checked") {
  OpGraph g = op_graph_from_json(
      json::parse(R"({"ops":["Conv","Relu","Add"],"edges":[[0,1],[1,2],[0,2],[0,1]]})"), "here");
  CHECK(g.ops == std::vector<std::string>{"Conv", "Relu", "Add"});
  CHECK(g.succ[0] == std::vector<int>{1, 2});  // sorted, duplicate edge dropped
  CHECK(operator_types(g) == std::vector<std::string>{"Add", "Conv", "Relu"});
  for (const char* bad :
       {"\"not an object\"", "[1]", R"({"ops":[1]})", R"({"ops":["A"],"edges":[[0,1]]})",
        R"({"ops":["A","B"],"edges":[[0,0]]})", R"({"ops":["A"],"edges":[[0]]})"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(op_graph_from_json(json::parse(bad), "model 7"),
                         doctest::Contains("model 7: "), UserError);
  }
  CHECK(op_graph_from_operators(json::parse(R"(["A","B"])"), "x").succ.size() == 2);
}

TEST_CASE("sequences: simple paths, walks and n-grams along edges") {
  OpGraph d = op_graph_from_json(
      json::parse(R"({"ops":["A","B","C","D"],"edges":[[0,1],[0,2],[1,3],[2,3]]})"), "d");
  bool capped = true;
  auto paths = simple_paths(d, 10, &capped);
  CHECK_FALSE(capped);
  CHECK(paths == std::vector<std::vector<int>>{{0, 1, 3}, {0, 2, 3}});
  CHECK(simple_paths(d, 1, &capped).size() == 1);
  CHECK(capped);
  // A cycle does not loop forever; an isolated node is a path of its own.
  OpGraph cyc = op_graph_from_json(
      json::parse(R"({"ops":["A","B","C","E"],"edges":[[0,1],[1,2],[2,1]]})"), "c");
  CHECK(simple_paths(cyc, 10).size() == 1);  // E alone (A->B->C->B never reaches a sink)
  CHECK(contains_walk(d, {"A", "C", "D"}));
  CHECK_FALSE(contains_walk(d, {"A", "D"}));
  CHECK_FALSE(contains_walk(d, {"B", "C"}));
  auto grams = edge_ngrams(chain({"A", "B", "C"}), 2, 6, 1000);
  CHECK(grams == std::set<std::string>{"A > B", "A > B > C", "B > C"});
}

TEST_CASE("sequences: a block planted in every mismatched model is found and reduced") {
  std::vector<OpGraph> bad, good;
  for (int i = 0; i < 6; ++i) {
    // Shared noise (Conv > Relu > Add also in correct models), then the planted X > Y > Z.
    bad.push_back(chain({"Conv", "Relu", "Add", i % 2 ? "Mul" : "Sub", "X", "Y", "Z", "Add"}));
    good.push_back(chain({"Conv", "Relu", "Add", "Mul", "Add"}));
  }
  // One mismatched model without the plant.
  bad.push_back(chain({"Conv", "Relu", "Add"}));
  SequenceStudy s = sequence_study(ptrs(bad), ptrs(good));
  CHECK(s.mismatched_models == 7);
  CHECK(s.correct_models == 6);
  auto reduced = texts(s.reduced);
  CHECK(std::find(reduced.begin(), reduced.end(), "X > Y > Z#6") != reduced.end());
  for (const auto& r : reduced) CHECK(r.find("Conv > Relu > Add#") == std::string::npos);
  CHECK(s.mismatched_holding == 6);
  CHECK(std::find(reduced.begin(), reduced.end(), "Relu > Add > Sub#3") != reduced.end());
  // Common blocks are maximal: the two whole variants, nothing inside them.
  auto common = texts(s.common_blocks);
  CHECK(common == std::vector<std::string>{"Conv > Relu > Add > Mul > X > Y > Z > Add#3",
                                           "Conv > Relu > Add > Sub > X > Y > Z > Add#3"});
  CHECK(texts(s.only_mismatched) == common);
}

TEST_CASE("sequences: the same sets for any order of models and nodes") {
  std::mt19937 rng(17);
  std::vector<OpGraph> bad, good;
  for (int i = 0; i < 12; ++i) bad.push_back(random_dag(rng, 8 + i % 5));
  for (int i = 0; i < 12; ++i) good.push_back(random_dag(rng, 8 + i % 4));
  SequenceStudy a = sequence_study(ptrs(bad), ptrs(good));
  CHECK(a.capped_models == 0);
  CHECK_FALSE(a.common_blocks.empty());
  for (int round = 0; round < 3; ++round) {
    std::vector<OpGraph> b2, g2;
    for (const auto& g : bad) b2.push_back(permuted(g, rng));
    for (const auto& g : good) g2.push_back(permuted(g, rng));
    std::shuffle(b2.begin(), b2.end(), rng);
    std::shuffle(g2.begin(), g2.end(), rng);
    SequenceStudy b = sequence_study(ptrs(b2), ptrs(g2));
    CHECK(texts(b.common_blocks) == texts(a.common_blocks));
    CHECK(texts(b.only_mismatched) == texts(a.only_mismatched));
    CHECK(texts(b.reduced) == texts(a.reduced));
    CHECK(b.mismatched_holding == a.mismatched_holding);
    CHECK(b.paths == a.paths);
  }
}

TEST_CASE("enrichment: a planted feature comes out with q < 0.01, a balanced one does not") {
  std::vector<std::set<std::string>> features;
  std::vector<bool> is_case;
  for (int i = 0; i < 60; ++i) {
    bool fail = i < 20;
    std::set<std::string> f{"Conv", "Relu"};
    if (fail) f.insert("Erf");
    if (i % 2) f.insert("Sigmoid");  // 10 of 20 failing, 20 of 40 passing
    features.push_back(f);
    is_case.push_back(fail);
  }
  auto rows = enrichment(features, is_case, 2);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].feature == "Erf");
  CHECK(rows[0].q < 0.01);
  CHECK(rows[0].odds_ratio > 10);
  CHECK(rows[0].case_rate == doctest::Approx(1.0));
  for (const auto& r : rows)
    if (r.feature != "Erf") CHECK(r.q > 0.5);
  // Model order does not matter.
  std::reverse(features.begin(), features.end());
  std::reverse(is_case.begin(), is_case.end());
  auto again = enrichment(features, is_case, 2);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CHECK(again[i].feature == rows[i].feature);
    CHECK(again[i].q == rows[i].q);
  }
}
