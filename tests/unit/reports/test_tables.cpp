#include <doctest/doctest.h>

#include <fstream>
#include <iterator>

#include "core/error.h"
#include "core/taxonomy.h"
#include "reports/report_data.h"
#include "reports/report_tables.h"
#include "reports_fixture.h"
#include "repro/bisect_history.h"
#include "repro/verdict_store.h"

using namespace convfail;
using namespace convfail::reports;

namespace {

reports::ReportData report(Db& db, reports::ReportOptions o = {}) {
  if (o.source == "jajal2024") o.source = "ann";
  o.verdicts = repro::latest_issue_verdicts(db);  // as the command line hands them over
  o.histories = repro::runtime_histories(db);
  return reports::build_report(db, Taxonomy::load(test::data_dir()), o);
}

const reports::Table& table(const reports::PrintedReport& p, const std::string& id) {
  for (const auto& t : p.tables)
    if (t.id == id) return t;
  FAIL("no table " << id);
  throw std::logic_error("unreachable");
}

// The row whose label is `label`, as cells.
std::vector<std::string> row(const reports::Table& t, const std::string& label) {
  for (const auto& r : t.rows)
    if (r[0] == label) return r;
  FAIL("no row " << label << " in " << t.id);
  return {};
}

using Row = std::vector<std::string>;

}  // namespace

TEST_CASE("report: stage and symptom by converter (tables 8, 9) from a hand-built label set") {
  test::TempDir dir;
  auto db = test::report_fixture(dir);
  reports::ReportData d = report(*db);
  CHECK(d.issues == 7);
  CHECK(d.converters == std::vector<std::string>{"tf2onnx", "torch.onnx"});
  CHECK(d.issues_by_converter.at("torch.onnx") == 4);
  CHECK(d.stage_by_converter.at("torch.onnx").at("node_conversion") == 2);
  CHECK(d.stage_by_converter.at("torch.onnx").at("export") == 0);  // empty cells are 0
  CHECK(d.stage_by_converter.at("tf2onnx").at("export") == 1);
  CHECK(d.symptom_by_converter.at("torch.onnx").at("wrong_model") == 2);  // after the relabel
  CHECK(d.symptom_by_converter.at("torch.onnx").at("crash") == 1);

  auto p = reports::printed_report(d, Taxonomy::load(test::data_dir()));
  const reports::Table& stage = table(p, "stage_by_converter");
  CHECK(stage.header == Row{"Stage", "tf2onnx", "torch.onnx", "Total"});
  CHECK(row(stage, "Node Conversion") == Row{"Node Conversion", "1", "2", "3 (43%)"});
  CHECK(row(stage, "Validation") == Row{"Validation", "0", "0", "0 (0%)"});
  CHECK(row(stage, "Total") == Row{"Total", "3", "4", "7 (100%)"});
  const reports::Table& symptom = table(p, "symptom_by_converter");
  CHECK(row(symptom, "Wrong Model") == Row{"Wrong Model", "1", "2", "3 (43%)"});
  CHECK(row(symptom, "Hang") == Row{"Hang", "0", "1", "1 (14%)"});
}

TEST_CASE("report: percentages round half up") {
  CHECK(reports::count_with_percent(19, 200) == "19 (10%)");
  CHECK(reports::count_with_percent(1, 200) == "1 (1%)");
  CHECK(reports::count_with_percent(65, 200) == "65 (33%)");
  CHECK(reports::count_with_percent(1, 3) == "1 (33%)");
  CHECK(reports::count_with_percent(0, 0) == "0 (0%)");
}

TEST_CASE("report: a share is never shown as 0% for some or 100% for not all") {
  CHECK(reports::count_with_percent(2, 1724) == "2 (0.1%)");  // was "2 (0%)"
  CHECK(reports::count_with_percent(1, 3000) == "1 (<0.1%)");
  CHECK(reports::count_with_percent(1722, 1724) == "1722 (99.9%)");  // was "1722 (100%)"
  CHECK(reports::count_with_percent(2999, 3000) == "2999 (>99.9%)");
  CHECK(reports::count_with_percent(0, 1724) == "0 (0%)");
  CHECK(reports::count_with_percent(1724, 1724) == "1724 (100%)");
  CHECK(reports::count_with_percent(0, 0) == "0 (0%)");
}

TEST_CASE("report: cause by symptom (table 10) bins the catch-all and rare causes as Other") {
  test::TempDir dir;
  auto db = test::report_fixture(dir);
  reports::ReportData d = report(*db);
  // Unbinned counts keep every cause and symptom.
  CHECK(d.cause_by_symptom.at("torch.onnx").at("others").at("hang") == 1);
  CHECK(d.cause_by_symptom.at("tf2onnx").at("typo").at("build_failure") == 1);
  CHECK(d.cause_by_symptom.at("tf2onnx").at("concurrency").at("crash") == 0);
  Taxonomy tax = Taxonomy::load(test::data_dir());
  // incompatibility (2) first, then the 1s in taxonomy order; "others" never.
  CHECK(reports::top_causes(d, tax) == std::vector<std::string>{"incompatibility", "type_problem",
                                                                "shape_problem",
                                                                "algorithmic_error", "typo"});
  auto p = reports::printed_report(d, tax);
  const reports::Table& t = table(p, "cause_by_symptom");
  // Every issue has a cause and a symptom: no Unlabeled row or column (the study's shape).
  CHECK(t.header == Row{"Cause", "Crash", "Wrong Model", "Other", "Total"});
  CHECK(t.title.find("tf2onnx / torch.onnx") != std::string::npos);
  CHECK(row(t, "Incompatibility") == Row{"Incompatibility", "1 / 1", "0 / 0", "0 / 0", "1 / 1"});
  CHECK(row(t, "Shape Problem") == Row{"Shape Problem", "0 / 0", "0 / 1", "0 / 0", "0 / 1"});
  CHECK(row(t, "Typo") == Row{"Typo", "0 / 0", "0 / 0", "1 / 0", "1 / 0"});
  CHECK(row(t, "Other") == Row{"Other", "0 / 0", "0 / 0", "0 / 1", "0 / 1"});
  CHECK(row(t, "Total") == Row{"Total", "1 / 1", "1 / 2", "1 / 1", "3 / 4"});
  CHECK(t.rows.size() == 7);  // five causes, Other, Total

  // The catch-all comes from taxonomy.json, not from the code: mark typo instead of others and
  // typo leaves the top five while others enters it.
  std::ifstream in(test::data_dir() + "/taxonomy.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string others_flag = ", \"catch_all\": true}";
  auto at = text.find(others_flag);
  REQUIRE(at != std::string::npos);
  text.erase(at, others_flag.size() - 1);
  auto typo = text.find("{\"id\": \"typo\"");
  REQUIRE(typo != std::string::npos);
  text.insert(typo + 1, "\"catch_all\": true, ");
  Taxonomy swapped = Taxonomy::from_json_text(text, "swapped");
  CHECK(swapped.is_catch_all("cause", "typo"));
  CHECK_FALSE(swapped.is_catch_all("cause", "others"));
  CHECK(reports::top_causes(d, swapped) == std::vector<std::string>{"incompatibility",
                                                                    "type_problem", "shape_problem",
                                                                    "algorithmic_error", "others"});
}

TEST_CASE("report: subtypes by converter") {
  test::TempDir dir;
  auto db = test::report_fixture(dir);
  reports::ReportData d = report(*db);
  CHECK(d.subtype_by_converter.at("tf2onnx").at("incompatibility").at("internal") == 1);
  CHECK(d.subtype_by_converter.at("torch.onnx").at("incompatibility").at("external") == 1);
  CHECK(d.subtype_by_converter.at("torch.onnx").at("type_problem").at("node") == 1);
  CHECK(d.subtype_by_converter.at("torch.onnx").at("type_problem").at("tensor") == 0);
  auto p = reports::printed_report(d, Taxonomy::load(test::data_dir()));
  const reports::Table& t = table(p, "subtype_by_converter");
  CHECK(row(t, "Incompatibility: Internal") == Row{"Incompatibility: Internal", "1", "0", "1"});
  CHECK(row(t, "Type Problem: Node") == Row{"Type Problem: Node", "0", "1", "1"});
  CHECK(t.rows.size() == 6);
}

TEST_CASE("report: issues per year and per quarter, with incompatibility and type problems") {
  test::TempDir dir;
  auto db = test::report_fixture(dir);
  reports::ReportData y = report(*db);
  CHECK(y.issues_by_period.at("2019").at("tf2onnx") == 1);
  CHECK(y.issues_by_period.at("2020").at("tf2onnx") == 2);
  CHECK(y.issues_by_period.at("2020").at("torch.onnx") == 2);
  CHECK(y.issues_by_period.at("unknown").at("torch.onnx") == 1);
  CHECK(y.causes_by_period.at("2020").at("torch.onnx").at("type_problem") == 1);
  CHECK(y.causes_by_period.at("2019").at("tf2onnx").at("incompatibility") == 1);
  auto p = reports::printed_report(y, Taxonomy::load(test::data_dir()));
  const reports::Table& t = table(p, "issues_by_period");
  CHECK(t.header.size() == 7);  // period, 2 converters, 2 causes x 2 converters
  CHECK(t.rows.back()[0] == "unknown");
  CHECK(row(t, "2020") == Row{"2020", "2", "2", "0", "1", "0", "1"});

  reports::ReportOptions q;
  q.period = "quarter";
  reports::ReportData d = report(*db, q);
  CHECK(d.issues_by_period.at("2020-Q1").at("tf2onnx") == 2);
  CHECK(d.issues_by_period.at("2020-Q1").at("torch.onnx") == 1);
  CHECK(d.issues_by_period.at("2020-Q2").at("torch.onnx") == 1);
  CHECK(d.issues_by_period.at("2021-Q3").at("torch.onnx") == 1);
}

TEST_CASE("report: --repo, --since and --until filter the issues") {
  test::TempDir dir;
  auto db = test::report_fixture(dir);
  reports::ReportOptions o;
  o.repos = {"PyTorch/PyTorch"};
  reports::ReportData d = report(*db, o);
  CHECK(d.issues == 4);
  CHECK(d.converters == std::vector<std::string>{"torch.onnx"});
  reports::ReportOptions w;
  w.since = "2020-01-01";
  w.until = "2020-12-31";
  CHECK(report(*db, w).issues == 4);  // undated issues drop out of a date filter
  w.since = "2030-01-01";
  w.until.reset();
  CHECK_THROWS_AS(report(*db, w), UserError);
  reports::ReportOptions bad;
  bad.since = "2020-13-01";
  CHECK_THROWS_AS(report(*db, bad), UsageError);
  bad.since = "yesterday";
  CHECK_THROWS_AS(report(*db, bad), UsageError);
  reports::ReportOptions run;
  run.source = "classifier:latest";
  CHECK_THROWS_AS(report(*db, run), UsageError);
  reports::ReportOptions by;
  by.period = "month";
  CHECK_THROWS_AS(report(*db, by), UsageError);
}

TEST_CASE("report: a source without labels names the sources that exist") {
  test::TempDir dir;
  auto db = test::report_fixture(dir);
  reports::ReportOptions o;
  o.source = "nobody";
  CHECK_THROWS_WITH_AS(report(*db, o), doctest::Contains("ann"), UserError);
}

TEST_CASE("report: --compare gives agreement per dimension and the labels that differ") {
  test::TempDir dir;
  auto db = test::report_fixture(dir, true);
  reports::ReportOptions o;
  o.compare = "bob";
  reports::ReportData d = report(*db, o);
  REQUIRE(d.agreement.size() == 3);
  const reports::SourceAgreement* symptom = nullptr;
  for (const auto& a : d.agreement)
    if (a.dimension == "symptom") symptom = &a;
  REQUIRE(symptom);
  CHECK(symptom->n == 3);
  CHECK(symptom->observed == doctest::Approx(2.0 / 3));
  REQUIRE(symptom->differences.size() == 1);
  CHECK(std::get<0>(symptom->differences[0]) == "crash");
  CHECK(std::get<1>(symptom->differences[0]) == "wrong_model");
  auto p = reports::printed_report(d, Taxonomy::load(test::data_dir()));
  CHECK(row(table(p, "agreement"), "Symptom")[1] == "3");
  CHECK(row(table(p, "agreement"), "Cause") == Row{"Cause", "0", "-", "-", "-"});
  CHECK(table(p, "differences").rows.size() == 1);
}

TEST_CASE("report: repro outcome per symptom uses the latest run per issue") {
  test::TempDir dir;
  {
    auto db = test::report_fixture(dir);
    CHECK_FALSE(report(*db).repro.has_value());  // no runs, no section
  }
  test::TempDir dir2;
  auto db = test::report_fixture(dir2, false, true);
  reports::ReportData d = report(*db);
  REQUIRE(d.repro.has_value());
  const auto& crash = d.repro->at("crash");
  CHECK(crash.confirmed == 1);
  CHECK(crash.not_reproduced == 1);
  const auto& wrong = d.repro->at("wrong_model");
  CHECK(wrong.confirmed == 1);      // PT#2: not_runnable, then wrong output
  CHECK(wrong.other_failure == 1);  // TF#3 crashed
  CHECK(wrong.not_run == 1);        // PT#3
  CHECK(wrong.not_runnable == 0);
  CHECK(d.repro->at("hang").not_run == 1);
  auto p = reports::printed_report(d, Taxonomy::load(test::data_dir()));
  CHECK(row(table(p, "repro_by_symptom"), "Wrong Model") ==
        Row{"Wrong Model", "1", "1", "0", "0", "1"});
}

TEST_CASE(
    "report: issues without a label are counted in every table, which add up to the heading") {
  test::TempDir dir;
  auto db = test::report_fixture(dir, false, true);
  // tf2onnx#9 gets a stage only and pytorch#4's cause is cleared: no symptom, no cause.
  test::add_label(*db, test::kTF, 9, "ann", "stage", "export");
  test::add_label(*db, test::kTF, 1, "ann", "subtype", "");
  Taxonomy tax = Taxonomy::load(test::data_dir());
  reports::ReportData d = report(*db);
  REQUIRE(d.issues == 8);
  CHECK(d.missing == reports::kUnlabeled);
  CHECK(d.symptom_by_converter.at("tf2onnx").at("unlabeled") == 1);
  CHECK(d.cause_by_symptom.at("tf2onnx").at("unlabeled").at("unlabeled") == 1);
  CHECK(d.stage_by_converter.at("tf2onnx").at("unlabeled") == 0);
  CHECK(d.subtype_by_converter.at("tf2onnx").at("incompatibility").at("unlabeled") == 1);
  CHECK(d.repro->at("unlabeled").not_run == 1);
  auto p = reports::printed_report(d, tax);
  CHECK(p.title.find("(8 issues)") != std::string::npos);
  for (const char* id : {"stage_by_converter", "symptom_by_converter"})
    CHECK(row(table(p, id), "Total").back() == "8 (100%)");
  // A row only where issues lack the label: every issue has a stage.
  const reports::Table& symptom = table(p, "symptom_by_converter");
  CHECK(symptom.rows[symptom.rows.size() - 2][0] == "Unlabeled");  // last before the total
  for (const auto& r : table(p, "stage_by_converter").rows) CHECK(r[0] != "Unlabeled");
  CHECK(row(table(p, "symptom_by_converter"), "Unlabeled") ==
        Row{"Unlabeled", "1", "0", "1 (13%)"});
  const reports::Table& t = table(p, "cause_by_symptom");
  CHECK(row(t, "Unlabeled") == Row{"Unlabeled", "0 / 0", "0 / 0", "0 / 0", "1 / 0", "1 / 0"});
  CHECK(row(t, "Total") == Row{"Total", "1 / 1", "1 / 2", "1 / 1", "1 / 0", "4 / 4"});
  CHECK(t.header == Row{"Cause", "Crash", "Wrong Model", "Other", "Unlabeled", "Total"});
  CHECK(row(table(p, "subtype_by_converter"), "Incompatibility: Unlabeled") ==
        Row{"Incompatibility: Unlabeled", "1", "0", "1"});
  long repro_rows = 0;
  for (const auto& r : table(p, "repro_by_symptom").rows)
    for (std::size_t i = 1; i < r.size(); ++i) repro_rows += std::stol(r[i]);
  CHECK(repro_rows == 8);
  CHECK(table(p, "repro_by_symptom").rows.back()[0] == "Unlabeled");
}
