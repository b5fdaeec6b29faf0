// The campaign's figures beyond the outcome table (campaign/analysis/campaign_breakdown.h): the
// tolerance curve counted from stored smallest passing tolerances, each mismatch group's, missing
// kernels by operator and type, Table 11 per family and per type beside the study's, and a group
// shown by its representative's message as said.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "campaign/analysis/campaign_analysis.h"
#include "campaign/analysis/campaign_breakdown.h"
#include "campaign/groups/groups.h"
#include "campaign/report/campaign_report.h"
#include "campaign/run/campaign.h"
#include "campaign/run/plan.h"
#include "core/error.h"
#include "core/migrations.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::campaign;

namespace {

StoredModel measured(int seq, const std::string& outcome, std::optional<double> tol,
                     const std::string& kind = "", std::optional<std::int64_t> group = {}) {
  StoredModel m;
  m.seq = seq;
  m.source = "synthetic";
  m.name = "synthetic-" + std::to_string(seq);
  m.outcome = outcome;
  m.min_tolerance = tol;
  m.difference_kind = kind;
  m.group_id = group;
  return m;
}

const ToleranceRow& row_of(const CampaignBreakdown& b, const std::string& kind) {
  for (const auto& r : b.tolerance)
    if (r.kind == kind) return r;
  FAIL("no row " << kind);
  return b.tolerance.front();
}

}  // namespace

TEST_CASE("breakdown: --dtypes all and the generator's version are part of the configuration") {
  CHECK(normalise_dtypes({"all"}) == all_dtypes());
  CHECK(all_dtypes().size() == 9);
  CHECK(normalise_dtypes({"bool", "int16", "bool"}) ==
        std::vector<std::string>{"float32", "int16", "bool"});
  CHECK(normalise_dtypes({}) == std::vector<std::string>{"float32"});
  CHECK_THROWS_AS(normalise_dtypes({"complex64"}), UsageError);
  CampaignConfig c;
  c.sources = {"synthetic"};
  CHECK(c.to_json()["generator"] == kSyntheticGenerator);
  c.sources = {"script:x.py"};
  CHECK_FALSE(c.to_json().contains("generator"));  // no synthetic model, no generator
}

TEST_CASE("breakdown: the tolerance curve counts models failing at atol = rtol = t") {
  std::vector<StoredModel> models = {
      measured(0, "success", 0.0),
      measured(1, "success", 5e-7, "small float difference"),      // fails at 1e-7 only
      measured(2, "mismatch", 2e-3, "small float difference", 7),  // fails at 1e-3 and below
      measured(3, "mismatch", 1e308, "non-finite value", 8),       // fails everywhere
      measured(4, "mismatch", 1e-3, "small float difference", 7),  // passes at 1e-3 exactly
      measured(5, "mismatch", std::nullopt, "", 7),                // stored before it was known
      measured(6, "conversion_failure", std::nullopt),
  };
  CampaignBreakdown b = breakdown_campaign(models, {7, 8});
  CHECK(b.compared == 6);
  CHECK(b.tolerance_unknown == 1);
  const ToleranceRow& small = row_of(b, "small float difference");
  CHECK(small.models == 3);
  CHECK(small.mismatched == 2);
  // 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7
  CHECK(small.failing == std::vector<long>{0, 1, 2, 2, 2, 3});
  CHECK(row_of(b, "non-finite value").failing == std::vector<long>{1, 1, 1, 1, 1, 1});
  CHECK(row_of(b, "no difference").failing == std::vector<long>{0, 0, 0, 0, 0, 0});
  const ToleranceRow& total = b.tolerance.back();
  CHECK(total.kind == "all compared models");
  CHECK(total.models == 5);
  CHECK(total.failing == std::vector<long>{1, 2, 3, 3, 3, 4});
  // Each mismatch group passes from its largest stored tolerance.
  REQUIRE(b.group_tolerance.size() == 2);
  CHECK(b.group_tolerance[0].group == 7);
  CHECK(b.group_tolerance[0].models == 3);
  CHECK(b.group_tolerance[0].known == 2);
  CHECK(*b.group_tolerance[0].passes_from == doctest::Approx(2e-3));
  CHECK(*b.group_tolerance[1].passes_from >= 1e308);
}

TEST_CASE("breakdown: missing kernels by operator and type, Table 11 per type and per family") {
  std::vector<StoredModel> models;
  auto add = [&](const std::string& source, const std::string& name, const std::string& outcome,
                 const std::string& signature,
                 std::optional<std::vector<std::string>> dtypes = std::nullopt) {
    StoredModel m = measured(static_cast<int>(models.size()), outcome, std::nullopt);
    m.source = source;
    m.name = name;
    m.signature = signature;
    m.dtypes = dtypes.value_or(std::vector<std::string>());
    if (dtypes) m.main_dtype = dtypes->back();  // the last type its generator drew most of
    models.push_back(m);
  };
  add("synthetic", "s0", "ort_failure", "onnxruntime: no kernel for Relu(14) on int16",
      std::vector<std::string>{"float32", "int16"});
  add("synthetic", "s1", "ort_failure", "onnxruntime: no kernel for Relu(14) on int64",
      std::vector<std::string>{"float32", "int64"});
  add("synthetic", "s2", "ort_failure", "onnxruntime: no kernel for Relu(14) on int16",
      std::vector<std::string>{"float32", "int16"});
  add("synthetic", "s3", "ort_failure", "onnxruntime: no kernel for Where(16) on bool",
      std::vector<std::string>{"float32", "bool"});
  add("synthetic", "s4", "success", "", std::vector<std::string>{"float32"});
  add("synthetic", "s5", "success", "");  // stored before types were recorded
  add("script", "script:x.py", "ort_failure", "[onnxruntimeerror] : n : fail");
  add("torchvision", "torchvision:resnet18", "success", "");
  add("torchvision", "torchvision:maskrcnn_resnet50_fpn", "conversion_failure", "x");
  add("torchvision", "torchvision:raft_small", "mismatch", "x");
  CampaignBreakdown b = breakdown_campaign(models, {});
  CHECK(b.ort_failures == 5);
  CHECK(b.ort_other == 1);
  REQUIRE(b.kernels.size() == 2);
  CHECK(b.kernels[0].op == "Relu(14)");
  CHECK(b.kernels[0].models == 3);
  CHECK(b.kernels[0].types.at("int16") == 2);
  CHECK(b.kernels[0].types.at("int64") == 1);
  CHECK(b.kernel_types == std::vector<std::string>{"int16", "int64", "bool"});  // nine's order
  // Per main type: each model once; then all synthetic, then the study.
  REQUIRE(b.dtypes.size() == 6);
  CHECK(b.dtypes[0].label == "float32");
  CHECK(b.dtypes[0].models == 1);  // s4 (s0-s3 have another main type)
  CHECK(b.dtypes[1].label == "int16");
  CHECK(b.dtypes[1].counts.at("ort_failure") == 2);
  CHECK(b.dtypes[2].label == "int64");
  CHECK(b.dtypes[3].label == "bool");
  CHECK(b.dtypes[4].label == "all synthetic models");
  CHECK(b.dtypes[4].models == 6);
  CHECK(b.synthetic_without_main == 1);
  CHECK(b.dtypes[5].reference);
  CHECK(b.dtypes[5].models == 1724);
  CHECK(b.dtypes[5].counts.at("ort_failure") == 741);
  // Per type touched: a model counts for each type it uses (no study row: it has no such table).
  REQUIRE(b.touched_dtypes.size() == 5);
  CHECK(b.touched_dtypes[0].label == "float32");
  CHECK(b.touched_dtypes[0].models == 5);
  CHECK(b.touched_dtypes[1].label == "int16");
  CHECK(b.touched_dtypes[1].counts.at("ort_failure") == 2);
  CHECK(b.touched_dtypes[4].label == "all synthetic models");
  CHECK(b.synthetic_without_dtypes == 1);
  // Per family: torchvision by architecture, scripts apart, the study's real models last.
  std::vector<std::string> labels;
  for (const auto& r : b.families) labels.push_back(r.label);
  CHECK(labels == std::vector<std::string>{"vision classification", "detection", "optical flow",
                                           "script", "all real models",
                                           "the study's torch.onnx real models"});
  CHECK(b.families[4].models == 3);  // scripts are no real models
  CHECK(b.families.back().models == 1419);
  CHECK(b.families.back().note.find("342") != std::string::npos);
}

TEST_CASE("breakdown: a model's family from its source and name, or as stored") {
  CHECK(study_family("torchvision", "torchvision:resnet50") == "vision classification");
  CHECK(study_family("torchvision", "torchvision:ssdlite320_mobilenet_v3_large") == "detection");
  CHECK(study_family("torchvision", "torchvision:lraspp_mobilenet_v3_large") == "segmentation");
  CHECK(study_family("torchvision", "torchvision:r2plus1d_18") == "video");
  CHECK(study_family("torchvision", "torchvision:raft_large") == "optical flow");
  CHECK(study_family("torchvision", "x", "optical_flow") == "optical flow");
  CHECK(study_family("torchvision", "x", "classification") == "vision classification");
  CHECK(study_family("torchaudio", "torchaudio:wav2vec2_base") == "audio");
  CHECK(study_family("huggingface", "huggingface:bert-base-uncased") == "text");
  CHECK(study_family("x", "y", "text") == "text");
  CHECK(study_family("script", "script:a.py") == "script");
  CHECK(study_family("synthetic", "synthetic-n5-s1") == "synthetic");
}

TEST_CASE("breakdown: stored tolerances and types round-trip, groups are shown as said") {
  test::TempDir dir;
  auto db = open_database(dir.file("c.db"));
  db->exec(
      "INSERT INTO campaigns(id, config_json, versions_json) VALUES "
      "(1, '{\"rtol\":0.001,\"atol\":1e-07}', '{}')");
  auto store = [&](int seq, const std::string& outcome, double tol, const std::string& kind,
                   std::vector<std::string> dtypes, const std::string& signature,
                   const std::string& message) {
    ModelTask t;
    t.seq = seq;
    t.source = "synthetic";
    t.name = "synthetic-n5-s" + std::to_string(seq);
    ModelResult r;
    r.outcome = outcome;
    r.min_tolerance = tol;
    r.difference_kind = kind;
    r.dtypes = std::move(dtypes);
    r.main_dtype = seq == 1 ? "" : r.dtypes.back();
    r.signature = signature;
    r.message = message;
    store_models(*db, 1, {model_row(t, r, "")}, RowWrite::kReplace);
  };
  store(0, "mismatch", 3e-4, "small float difference", {"float32", "float16"},
        "mismatch both: small float difference, n of n elements differ",
        "mismatch (both): small float difference, 2 of 12 elements differ");
  store(1, "success", 2e-8, "small float difference", {"float32"}, "", "");
  store(2, "ort_failure", -1, "", {"float32", "int16"},
        "onnxruntime: no kernel for Relu(14) on int16",
        "Could not find an implementation for Relu(14) node with name '/Relu'");
  db->exec(
      "INSERT INTO campaign_groups(id, campaign_id, outcome, signature, size, representative_seq)"
      " VALUES (5, 1, 'mismatch', 'mismatch both: small float difference, n of n elements "
      "differ', 1, 0), (6, 1, 'ort_failure', 'onnxruntime: no kernel for Relu(14) on int16', 1, "
      "2)");
  db->exec("UPDATE campaign_models SET group_id = 5 WHERE seq = 0");
  db->exec("UPDATE campaign_models SET group_id = 6 WHERE seq = 2");
  auto models = load_models(*db, 1);
  REQUIRE(models.size() == 3);
  CHECK(*models[0].min_tolerance == doctest::Approx(3e-4));
  CHECK(models[0].dtypes == std::vector<std::string>{"float32", "float16"});
  CHECK(models[0].main_dtype == "float16");  // schema 0023's column, beside dtypes_json
  CHECK(models[1].main_dtype.empty());       // none said: NULL
  CHECK(models[2].main_dtype == "int16");
  CHECK_FALSE(models[2].min_tolerance);  // not compared: nothing stored
  CHECK(list_groups(*db, 1)[1]["message"] ==
        "Could not find an implementation for Relu(14) node with name '/Relu'");

  CampaignAnalysis a = analyse_campaign(*db, 1);
  REQUIRE(a.breakdown.group_tolerance.size() == 1);
  CHECK(*a.breakdown.group_tolerance[0].passes_from == doctest::Approx(3e-4));
  std::string md = campaign_report(*db, 1, reports::ReportFormat::kMarkdown);
  // The defects table shows the message as said: the version and the node's name, not "relu(n)";
  // a missing kernel's type (which the message does not say) follows it.
  CHECK(md.find("| 6 | ORT failure | Could not find an implementation for Relu(14) node with "
                "name '/Relu' (on int16) |") != std::string::npos);
  CHECK(md.find("| Relu(14) | 1 | 1 |") != std::string::npos);
  CHECK(md.find("| small float difference | 2 | 0 | 0 | 1 | 1 | 1 | 1 | 1 |") != std::string::npos);
  CHECK(md.find("| 5 | mismatch (both): small float difference, 2 of 12 elements differ | 1 | "
                "3.0e-04 | 1e-3 |") != std::string::npos);
  auto j = nlohmann::json::parse(campaign_report(*db, 1, reports::ReportFormat::kJson));
  CHECK(j["tolerance_curve"]["rows"][0]["failing"]["1e-7"] == 1);  // 3e-4 fails, 2e-8 not
  CHECK(j["tolerance_curve"]["rows"][0]["failing"]["1e-3"] == 0);
  CHECK(j["outcomes_by_touched_dtype"][0]["label"] == "float32");  // every model touches it
  CHECK(j["outcomes_by_touched_dtype"][0]["models"] == 3);
  CHECK(j["outcomes_by_dtype"][0]["label"] == "float16");  // seq 0's main type; seq 1 has none
  CHECK(j["outcomes_by_dtype"][0]["models"] == 1);
  CHECK(j["synthetic_without_main_dtype"] == 1);
  CHECK(j["ort_kernels"]["rows"][0]["types"]["int16"] == 1);
  std::string csv = campaign_report(*db, 1, reports::ReportFormat::kCsv);
  CHECK(csv.find("tolerance_curve,small float difference,t = 1e-4,1") != std::string::npos);
  CHECK(csv.find("outcomes_by_dtype,int16,ORT failure,1") != std::string::npos);
  std::string html = campaign_report(*db, 1, reports::ReportFormat::kHtml);
  CHECK(html.find("Models failing at atol = rtol = t") != std::string::npos);
  std::string tex = campaign_report(*db, 1, reports::ReportFormat::kLatex);
  CHECK(tex.find("outcomes-by-family") != std::string::npos);

  // A row whose types are not a list reads as none, with the column named (the store's one rule
  // for JSON columns); the report counts it among the synthetic models without types.
  db->exec("UPDATE campaign_models SET dtypes_json = '{\"a\":1}' WHERE seq = 1");
  auto odd = load_model(*db, 1, 1);
  REQUIRE(odd);
  CHECK(odd->dtypes.empty());
  CHECK(odd->malformed == std::vector<std::string>{"dtypes_json"});
  CHECK(analyse_campaign(*db, 1).breakdown.synthetic_without_dtypes == 1);
}

TEST_CASE("breakdown: not_run models apart with their reasons, in no group, harness notes kept") {
  test::TempDir dir;
  auto db = open_database(dir.file("c.db"));
  db->exec(
      "INSERT INTO campaigns(id, config_json, versions_json) VALUES (1, '{}', '{}'), "
      "(2, '{}', '{}')");
  auto store = [&](int seq, const std::string& outcome, const std::string& message,
                   const std::string& note = "") {
    ModelTask t;
    t.seq = seq;
    t.source = "synthetic";
    t.name = "synthetic-n5-s" + std::to_string(seq);
    ModelResult r;
    r.outcome = outcome;
    r.message = message;
    r.signature = message;
    r.harness_note = note;
    r.dtypes = {"float32", "float16"};
    store_models(*db, 1, {model_row(t, r, "")}, RowWrite::kReplace);
  };
  const std::string fed = "float16 inputs x fed and read as float32 through Cast nodes";
  const std::string old = "not run: ONNX Runtime 1.14.0 predates the model's opset 21";
  store(0, "success", "", fed);
  store(1, "not_run", old);
  store(2, "not_run", "torch worker timeout in export");
  store(3, "not_run", old);
  store(4, "invalid", "reference output holds NaN or Inf");
  store(5, "ort_failure", "Could not find an implementation for Add(14) node with name '/Add'");

  StatusCounts s = campaign_status(*db, 1);
  CHECK(s.outcomes.back() == std::pair<std::string, std::int64_t>{"not_run", 3});
  CHECK(s.planned == 6);
  CHECK(s.harness_notes == 1);
  REQUIRE(s.not_run_reasons.size() == 2);
  CHECK(s.not_run_reasons[0] == std::pair<std::string, std::int64_t>{old, 2});
  regroup(*db, 1);
  CHECK(load_groups(*db, 1).size() == 1);  // the ORT failure only: not_run is no failure group

  CampaignAnalysis a = analyse_campaign(*db, 1);
  REQUIRE(a.breakdown.not_run.size() == 2);
  CHECK(a.breakdown.not_run[0] == std::pair<std::string, long>{old, 2});
  CHECK(a.breakdown.dtypes[0].counts.at("not_run") == 3);
  std::string md = campaign_report(*db, 1, reports::ReportFormat::kMarkdown);
  CHECK(md.find("| Invalid | Not run |") != std::string::npos);
  CHECK(md.find("| " + old + " | 2 |") != std::string::npos);
  // The study's rows leave this tool's own classes blank.
  CHECK(md.find("| 881 (51%) | - | - | 1724 |") != std::string::npos);
  auto j = nlohmann::json::parse(campaign_report(*db, 1, reports::ReportFormat::kJson));
  CHECK(j["not_run"][1]["reason"] == "torch worker timeout in export");
  CHECK(j["outcomes"][0]["counts"]["not_run"] == 3);
  std::string csv = campaign_report(*db, 1, reports::ReportFormat::kCsv);
  CHECK(csv.find("not_run,torch worker timeout in export,Models,1") != std::string::npos);

  // test merge copies the note with the row.
  CHECK(store_models(*db, 2, load_models(*db, 1), RowWrite::kKeep) == 6);
  CHECK(campaign_status(*db, 2).harness_notes == 1);
}
