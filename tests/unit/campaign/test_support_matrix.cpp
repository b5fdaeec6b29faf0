// The support matrix (campaign/run/support_matrix, support_store, support_report): where a
// one-operator model stopped, the worker's operator table checked, the cells still to measure,
// the pairs a filtered draw may use and its identity, the stored cells, and the gaps with the
// first release where they work.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "campaign/outcomes.h"
#include "campaign/report/support_report.h"
#include "campaign/run/plan.h"
#include "campaign/run/support_matrix.h"
#include "campaign/store/support_store.h"
#include "core/error.h"
#include "core/migrations.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::campaign;
using nlohmann::json;

namespace {

ModelResult result(const std::string& outcome, const std::string& stage = "",
                   const std::string& signature = "", const std::string& message = "") {
  ModelResult r;
  r.outcome = outcome;
  r.stage = stage;
  r.signature = signature;
  r.message = message;
  return r;
}

SupportCell cell(const std::string& op, const std::string& dtype, int opset,
                 const std::string& cls) {
  return {op,
          dtype,
          opset,
          cls,
          cls == kWorks ? "" : "run",
          cls == kWorks ? "" : "why",
          cls == kWorks ? "" : "sig " + op,
          0.1};
}

}  // namespace

TEST_CASE("support: a one-operator model's oracle result is the cell's class") {
  CHECK(cell_class(result(kSuccess)) == kWorks);
  CHECK(cell_class(result(kMismatch, "compare")) == kWrongResult);
  CHECK(cell_class(result(kConversionFailure, "export", "", "UnsupportedOperatorError: sinh")) ==
        kExportRaised);
  CHECK(cell_class(result(kConversionFailure, "checker")) == kInvalidExport);
  CHECK(cell_class(result(kConversionFailure, "shape_inference")) == kInvalidExport);
  CHECK(cell_class(result("invalid_export", "checker")) == kInvalidExport);
  CHECK(cell_class(result(kConversionFailure, "export", "",
                          "torch worker signal SIGSEGV in export")) == kCrashed);
  CHECK(cell_class(result(kOrtFailure, "session",
                          "onnxruntime: no kernel for Relu(14) on int16")) == kNoKernel);
  CHECK(cell_class(result(kOrtFailure, "run", "signal SIGSEGV")) == kCrashed);
  CHECK(cell_class(result(kOrtFailure, "run", "timeout")) == kCrashed);
  CHECK(cell_class(result(kOrtFailure, "session", "[onnxruntimeerror] : n : type error")) ==
        kOrtError);
  CHECK(cell_class(result(kInvalid, "eager")) == kCellInvalid);
  CHECK(cell_class(result("not_run", "session")) == kCellInvalid);
  CHECK(support_classes().size() == 9);
  for (const auto& c : support_classes()) CHECK(support_class_mark(c).size() == 1);
}

TEST_CASE("support: the worker's operator table is checked, never trusted") {
  int generator = 0;
  json ok = {{"ok", true},
             {"generator", 3},
             {"ops", {{{"op", "relu"}, {"types", {"float32", "int16"}}, {"eager", {"float32"}}}}}};
  auto ops = parse_support_table(ok, &generator);
  CHECK(generator == 3);
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].op == "relu");
  CHECK(ops[0].eager == std::vector<std::string>{"float32"});
  auto bad = [&](json j, const std::string& says) {
    CHECK_THROWS_WITH_AS(parse_support_table(j, &generator), doctest::Contains(says.c_str()),
                         UserError);
  };
  bad(json::array(), "no support table");
  bad({{"ok", true}, {"ops", json::array()}}, "names no generator");
  json j = ok;
  j["ops"][0]["op"] = "re lu\x1b[2J";
  bad(j, "not a new identifier");
  j = ok;
  j["ops"].push_back(ok["ops"][0]);
  bad(j, "not a new identifier");
  j = ok;
  j["ops"][0]["types"] = {"float32", "complex64"};
  bad(j, "not one of the nine");
  j = ok;
  j["ops"][0]["eager"] = {"int8"};
  bad(j, "not a measured one");
  j = ok;
  j["ops"][0]["types"] = "float32";
  bad(j, "not a list of types");
}

TEST_CASE("support: missing cells, the draw's pairs and the matrix's identity") {
  std::vector<SupportOp> ops = {{"relu", {"float32", "int16", "bool"}, {"float32", "int16"}},
                                {"softplus", {"float32", "float64"}, {"float32", "float64"}}};
  std::vector<SupportCell> stored = {cell("relu", "float32", 16, kWorks)};
  auto todo = missing_cells(ops, {}, {16}, stored);
  REQUIRE(todo.size() == 4);  // relu int16, relu bool (not in eager), softplus float32, float64
  CHECK(todo[0].op == "relu");
  CHECK(todo[0].dtype == "int16");
  CHECK(todo[0].eager);
  CHECK(todo[1].dtype == "bool");
  CHECK_FALSE(todo[1].eager);
  CHECK(missing_cells(ops, {"float64"}, {16, 17}, stored).size() == 2);  // softplus, each opset

  std::vector<SupportCell> cells = {
      cell("relu", "int16", 16, kNoKernel),       cell("relu", "float32", 16, kWorks),
      cell("relu", "float64", 16, kWorks),        cell("relu", "float32", 17, kWorks),
      cell("softplus", "float64", 16, kNoKernel), cell("sin", "int8", 16, kInvalidExport),
      cell("add", "int8", 16, kWrongResult),      cell("abs", "bool", 16, kNotInEager)};
  json pairs = working_pairs(cells, 16, all_dtypes());
  CHECK(pairs == json{{"relu", {"float32", "float64"}}});  // only works, only opset 16, in order
  CHECK(working_pairs(cells, 16, {"float32"}) == json{{"relu", {"float32"}}});
  CHECK(working_pairs(cells, 17, all_dtypes()) == json{{"relu", {"float32"}}});
  SupportVersions v{"1.13.1", "1.13.0", "1.31.1", 3};
  json id = support_identity(v, pairs);
  CHECK(id["onnxruntime"] == "1.31.1");
  CHECK(id["working_pairs_sha256"].get<std::string>().size() == 64);
  CHECK(support_identity(v, working_pairs(cells, 16, {"float32"})) != id);
  SupportVersions other = v;
  other.onnxruntime = "1.20.1";
  CHECK(support_identity(other, pairs) != id);
  auto n = cells_per_class(cells);
  CHECK(n[kWorks] == 3);
  CHECK(n[kNoKernel] == 2);
}

TEST_CASE("support: cells stored per versions, replaced, forgotten, gaps across releases") {
  test::TempDir dir;
  auto db = open_database(dir.file("s.db"));
  SupportVersions old{"1.13.1", "1.13.0", "1.14.0", kSyntheticGenerator};
  SupportVersions pin{"1.13.1", "1.13.0", "1.31.1", kSyntheticGenerator};
  CHECK_FALSE(find_support_matrix(*db, old));
  std::int64_t a = support_matrix_for(*db, old), b = support_matrix_for(*db, pin);
  CHECK(a != b);
  CHECK(support_matrix_for(*db, old) == a);
  CHECK(*find_support_matrix(*db, old) == a);
  store_support_cell(*db, a, cell("relu", "int16", 16, kNoKernel));
  store_support_cell(*db, a, cell("softplus", "float64", 16, kNoKernel));
  store_support_cell(*db, a, cell("sin", "int8", 16, kInvalidExport));
  store_support_cell(*db, a, cell("add", "float32", 16, kWorks));
  store_support_cell(*db, a, cell("abs", "float32", 16, kWorks));
  store_support_cell(*db, b, cell("relu", "int16", 16, kWorks));
  store_support_cell(*db, b, cell("softplus", "float64", 16, kNoKernel));
  store_support_cell(*db, b, cell("sin", "int8", 16, kInvalidExport));
  store_support_cell(*db, b, cell("add", "float32", 16, kWorks));
  store_support_cell(*db, b, cell("abs", "float32", 16, kWorks));
  store_support_cell(*db, b, cell("abs", "float32", 16, kWrongResult));  // measured again
  auto cells = load_support_cells(*db, b);
  REQUIRE(cells.size() == 5);
  CHECK(cells[0].op == "abs");
  CHECK(cells[0].cls == kWrongResult);
  CHECK(cells[0].message == "why");
  CHECK(cells[0].signature == "sig abs");

  auto views = load_matrix_views(*db, {});
  REQUIRE(views.size() == 2);
  CHECK(views[0].matrix.versions.onnxruntime == "1.14.0");  // release order
  CHECK_THROWS_WITH_AS(load_matrix_views(*db, {"1.20.1"}), doctest::Contains("1.20.1"), UserError);
  auto gaps = support_gaps(views, {});
  REQUIRE(gaps.size() == 4);  // abs, relu, sin, softplus; add works everywhere
  CHECK(gaps[0].op == "abs");
  CHECK(gaps[0].summary == "wrong_result from 1.31.1 (worked before)");
  CHECK(gaps[1].op == "relu");
  CHECK(gaps[1].summary == "works from 1.31.1");
  CHECK(gaps[2].summary == "invalid_export up to 1.31.1");
  CHECK(gaps[3].summary == "no_kernel up to 1.31.1");
  CHECK(gaps[3].classes == std::vector<std::string>{kNoKernel, kNoKernel});
  json j = support_json(views, {});
  CHECK(j["matrices"].size() == 2);
  CHECK(j["matrices"][1]["cells_per_class"]["works"] == 2);  // relu, add (abs measured again)
  CHECK(j["gaps"].size() == 4);
  std::string md = render_support(views, {}, reports::ReportFormat::kMarkdown);
  CHECK(md.find("works from 1.31.1") != std::string::npos);
  std::string csv = render_support(views, {}, reports::ReportFormat::kCsv);
  CHECK(csv.find("support_1.31.1_opset16,relu,int16,works") != std::string::npos);

  clear_support_cells(*db, b);
  CHECK(load_support_cells(*db, b).empty());
  CHECK(load_support_cells(*db, a).size() == 5);
}

TEST_CASE("support: whether the draw is filtered is part of a synthetic campaign's key") {
  CampaignConfig c;
  c.sources = {"synthetic"};
  CHECK(c.to_json()["filtered"] == true);
  CHECK(c.to_json()["generator"] == kSyntheticGenerator);
  CampaignConfig u = c;
  u.filtered = false;
  CHECK(u.to_json() != c.to_json());
  CampaignConfig real;
  real.sources = {"torchvision"};
  CHECK_FALSE(real.to_json().contains("filtered"));
}
