#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "campaign/analysis/campaign_analysis.h"
#include "campaign/report/campaign_report.h"
#include "core/error.h"
#include "core/migrations.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::campaign;

namespace {

std::string chain_json(const std::vector<std::string>& ops) {
  nlohmann::json edges = nlohmann::json::array();
  for (std::size_t i = 0; i + 1 < ops.size(); ++i) edges.push_back({i, i + 1});
  return nlohmann::json{{"ops", ops}, {"edges", edges}}.dump();
}

void add_model(Db& db, int seq, const std::string& source, int nodes, const std::string& outcome,
               const std::vector<std::string>& ops) {
  Stmt s = db.prepare(
      "INSERT INTO campaign_models(campaign_id, seq, source, name, nodes, outcome, "
      "operators_json, graph_json) VALUES (1, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, seq).bind(2, source).bind(3, source + "-" + std::to_string(seq)).bind(4, nodes);
  s.bind(5, outcome);
  if (ops.empty()) {
    s.bind_null(6).bind_null(7);
  } else {
    s.bind(6, nlohmann::json(ops).dump()).bind(7, chain_json(ops));
  }
  s.run();
}

// 20 mismatches all holding Erf, 40 successes without it; Sigmoid in half of each; two
// conversion failures without a graph, one invalid; two groups.
void planted_campaign(Db& db) {
  db.exec(
      "INSERT INTO campaigns(id, config_json, versions_json) VALUES "
      "(1, '{\"seed\":1}', '{\"torch\":\"1.13.1\"}')");
  int seq = 0;
  for (int i = 0; i < 60; ++i) {
    bool bad = i < 20;
    std::vector<std::string> ops{"Conv", "Relu"};
    if (bad) ops.insert(ops.end(), {"Erf", "Mul", "Tanh"});
    if (i % 2) ops.push_back("Sigmoid");
    ops.push_back("Add");
    add_model(db, seq++, "synthetic", i % 3 ? 20 : 30, bad ? "mismatch" : "success", ops);
  }
  add_model(db, seq++, "synthetic", 20, "conversion_failure", {});
  add_model(db, seq++, "synthetic", 30, "conversion_failure", {});
  add_model(db, seq++, "torchvision", 150, "invalid", {"Conv", "Erf"});
  db.exec(
      "INSERT INTO campaign_groups(id, campaign_id, outcome, signature, size, representative_seq,"
      " original_nodes, minimised_nodes, minimised_graph_json, candidates_json, labels_json) VALUES"
      " (1, 1, 'mismatch', 'max abs diff above tolerance', 20, 0, 20, 3,"
      "  '{\"ops\":[\"Erf\",\"Mul\",\"Tanh\"],\"edges\":[[0,1],[1,2]]}',"
      "  '[{\"issue\":\"pytorch/pytorch#123\",\"score\":2.5,\"why\":\"erf\"}]',"
      "  "
      "'{\"symptom\":\"wrong_model\",\"cause\":\"algorithmic_error\",\"stage\":\"node_conversion\"}"
      "'),"
      " (2, 1, 'conversion_failure', 'RuntimeError: unsupported <op>', 2, 60, 20, NULL, NULL, "
      "'[]', NULL)");
}

}  // namespace

TEST_CASE("campaign analysis: planted operator, outcome table, groups") {
  test::TempDir dir;
  auto db = open_database(dir.file("c.db"));
  planted_campaign(*db);
  CampaignAnalysis a = analyse_campaign(*db, 1);
  CHECK(a.models == 63);
  // Outcome rows: synthetic 20 and 30 nodes, synthetic all, torchvision bin, torchvision all,
  // Total.
  REQUIRE(a.outcomes.size() == 6);
  CHECK(a.outcomes[0].label == "synthetic, 20 nodes");
  CHECK(a.outcomes[0].models == 41);
  CHECK(a.outcomes[0].counts.at("conversion_failure") == 1);
  CHECK(a.outcomes[2].label == "synthetic, all");
  CHECK(a.outcomes[2].counts.at("mismatch") == 20);
  CHECK(a.outcomes[3].label == "torchvision, 101-200 nodes");
  CHECK(a.outcomes.back().label == "Total");
  CHECK(a.outcomes.back().models == 63);
  CHECK(a.outcomes.back().counts.at("invalid") == 1);

  CHECK(a.ops_mismatched ==
        std::vector<std::string>{"Add", "Conv", "Erf", "Mul", "Relu", "Sigmoid", "Tanh"});
  CHECK(a.ops_correct == std::vector<std::string>{"Add", "Conv", "Relu", "Sigmoid"});
  CHECK(a.failing_with_graph == 20);  // conversion failures have no graph, invalid is left out
  CHECK(a.passing_with_graph == 40);
  bool erf = false, sigmoid = false;
  for (const auto& e : a.operators) {
    if (e.feature == "Erf") {
      erf = true;
      CHECK(e.q < 0.01);
      CHECK(e.case_with == 20);
    }
    if (e.feature == "Sigmoid") {
      sigmoid = true;
      CHECK(e.q >= 0.05);
    }
  }
  CHECK(erf);
  CHECK(sigmoid);
  CHECK(a.operators_mismatch.front().q < 0.01);
  // The planted block is the reduced sequence every mismatched model holds.
  CHECK(a.sequences.mismatched_holding == 20);
  bool planted = false;
  for (const auto& f : a.sequences.reduced) planted |= sequence_text(f.ops) == "Relu > Erf > Mul";
  CHECK(planted);
  CHECK(a.ngrams.front().q < 0.01);

  REQUIRE(a.groups.size() == 2);
  CHECK(a.groups[0].minimised);
  CHECK(a.groups[0].sequence == std::vector<std::string>{"Erf", "Mul", "Tanh"});
  CHECK(*a.groups[0].candidates == std::vector<std::string>{"pytorch/pytorch#123"});
  CHECK(a.groups[0].labels.at("cause") == "algorithmic_error");
  CHECK(a.groups[1].candidates->empty());
  CHECK_FALSE(
      a.groups[1].graph.has_value());  // representative 60 is a conversion failure, no graph

  std::string md = campaign_report(*db, 1, reports::ReportFormat::kMarkdown);
  CHECK(md.find("Operators that raise the odds of a failure: Erf: 20 of 20 models holding it "
                "fail (100.0%), 0 of 40 without (0.0%), odds ratio inf") != std::string::npos);
  CHECK(a.failing_without_graph == 2);  // the conversion failures, said in the note
  CHECK(md.find("2 failing models have no exported graph") != std::string::npos);
  CHECK(md.find("larger models hold more operator types") != std::string::npos);
  CHECK(md.find("| 2 | Conversion failure | RuntimeError: unsupported <op> | 2 |") !=
        std::string::npos);
  CHECK(md.find("| new |") != std::string::npos);
  auto j = nlohmann::json::parse(campaign_report(*db, 1, reports::ReportFormat::kJson));
  CHECK(j["operators"]["enrichment"][0]["feature"] == "Erf");
  CHECK(j["sequences"]["mismatched_holding"] == 20);
}

TEST_CASE("campaign analysis: no operator stands out in a balanced campaign") {
  test::TempDir dir;
  auto db = open_database(dir.file("c.db"));
  db->exec("INSERT INTO campaigns(id, config_json, versions_json) VALUES (1, '{}', '{}')");
  for (int i = 0; i < 40; ++i)
    add_model(*db, i, "synthetic", 10, i % 4 < 2 ? "mismatch" : "success",
              i % 2 ? std::vector<std::string>{"Conv", "Relu", "Add"}
                    : std::vector<std::string>{"Conv", "Sigmoid", "Add"});
  CampaignAnalysis a = analyse_campaign(*db, 1);
  for (const auto& e : a.operators) CHECK(e.q >= 0.05);
  std::string md = campaign_report(*db, 1, reports::ReportFormat::kMarkdown);
  CHECK(md.find("No operator raises the odds of a failure") != std::string::npos);
}

TEST_CASE("campaign analysis: a missing campaign is an error, a broken row is left out, counted") {
  test::TempDir dir;
  auto db = open_database(dir.file("c.db"));
  CHECK_THROWS_WITH_AS(analyse_campaign(*db, 5), doctest::Contains("campaign 5 not found"),
                       UserError);
  db->exec("INSERT INTO campaigns(id, config_json, versions_json) VALUES (1, '{}', '{}')");
  db->exec(
      "INSERT INTO campaign_models(campaign_id, seq, source, name, outcome, graph_json) VALUES "
      "(1, 4, 'synthetic', 'x', 'success', '{\"ops\":[\"A\"],\"edges\":[[0,3]]}')");
  // One row with edges out of range (from an older convfail, or merged from elsewhere) never
  // fails the report of the whole campaign: its graph is left out and counted.
  CampaignAnalysis a = analyse_campaign(*db, 1);
  CHECK(a.models == 1);
  CHECK(a.models_with_graph == 0);
  CHECK(a.unreadable_graphs == 1);
  std::string j = campaign_report(*db, 1, reports::ReportFormat::kJson);
  CHECK(j.find("\"unreadable_graphs\": 1") != std::string::npos);
}

TEST_CASE("campaign analysis: architectures of one node bin are one outcome row") {
  // Before, each architecture's exact node count made its own "torchvision, 1-50 nodes" row.
  test::TempDir dir;
  auto db = open_database(dir.file("c.db"));
  planted_campaign(*db);
  add_model(*db, 100, "torchvision", 120, "success", {"Conv", "Relu"});
  add_model(*db, 101, "torchvision", 199, "mismatch", {"Conv", "Erf"});
  add_model(*db, 102, "torchvision", 40, "success", {"Conv"});
  CampaignAnalysis a = analyse_campaign(*db, 1);
  // synthetic 20, 30, all; torchvision 1-50, 101-200, all; Total.
  REQUIRE(a.outcomes.size() == 7);
  CHECK(a.outcomes[3].label == "torchvision, 1-50 nodes");
  CHECK(a.outcomes[3].models == 1);
  CHECK(a.outcomes[4].label == "torchvision, 101-200 nodes");
  CHECK(a.outcomes[4].models == 3);
  CHECK(a.outcomes[4].counts.at("mismatch") == 1);
  CHECK(a.outcomes[4].counts.at("invalid") == 1);
  CHECK(a.outcomes[5].label == "torchvision, all");
  CHECK(a.outcomes[5].models == 4);
}
