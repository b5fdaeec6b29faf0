#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/importer.h"
#include "core/migrations.h"
#include "core/taxonomy.h"
#include "reports/opsets.h"
#include "reports/spearman.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::reports;

namespace {

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

const reports::OpsetVersion& at(const std::vector<reports::OpsetVersion>& h, int v) {
  REQUIRE(v >= 1);
  REQUIRE(static_cast<std::size_t>(v) <= h.size());
  return h[v - 1];
}

}  // namespace

TEST_CASE("opsets: known operator histories from the schema registry") {
  CHECK(reports::operator_versions("Resize") == std::vector<int>{10, 11, 13});  // libonnx 1.12
  CHECK(reports::operator_versions("Gemm") == std::vector<int>{1, 6, 7, 9, 11, 13});
  CHECK(reports::operator_versions("Conv") == std::vector<int>{1, 11});
  CHECK(reports::operator_versions("NoSuchOp").empty());
  auto h = reports::opset_history();
  REQUIRE(h.size() >= 17);
  CHECK(has(at(h, 10).added, "Resize"));
  CHECK(has(at(h, 11).updated, "Resize"));
  CHECK(has(at(h, 13).updated, "Resize"));
  CHECK_FALSE(has(at(h, 12).updated, "Resize"));
  CHECK(has(at(h, 1).added, "Conv"));
  CHECK(has(at(h, 11).updated, "Conv"));
  CHECK(has(at(h, 9).updated, "Gemm"));
  CHECK(has(at(h, 10).deprecated, "Upsample"));
  CHECK(has(at(h, 10).updated, "Upsample"));
}

TEST_CASE("opsets: totals follow additions and deprecations") {
  auto h = reports::opset_history();
  CHECK(h[0].total == static_cast<int>(h[0].added.size()));
  for (std::size_t i = 1; i < h.size(); ++i) {
    CAPTURE(h[i].version);
    CHECK(h[i].version == h[i - 1].version + 1);
    CHECK(h[i].total == h[i - 1].total + static_cast<int>(h[i].added.size()) -
                            static_cast<int>(h[i].deprecated.size()));
    for (const auto& op : h[i].added) CHECK_FALSE(has(h[i].updated, op));
  }
}

TEST_CASE("spearman: ranks with ties and known coefficients") {
  CHECK(reports::average_ranks({10, 20, 20, 30}) == std::vector<double>{1, 2.5, 2.5, 4});
  CHECK(reports::spearman({1, 2, 3, 4}, {10, 20, 30, 40}) == doctest::Approx(1));
  CHECK(reports::spearman({1, 2, 3, 4}, {4, 3, 2, 1}) == doctest::Approx(-1));
  CHECK(reports::spearman({1, 2, 3, 4}, {1, 3, 2, 4}) == doctest::Approx(0.8));
  // With ties: Pearson of average ranks (x ranks 1,2.5,2.5,4; y ranks 1,2,3,4).
  CHECK(reports::spearman({1, 2, 2, 3}, {1, 2, 3, 4}) == doctest::Approx(4.5 / std::sqrt(4.5 * 5)));
  CHECK(std::isnan(reports::spearman({1, 1, 1}, {1, 2, 3})));
  CHECK(std::isnan(reports::spearman({1}, {1})));
}

TEST_CASE("opsets: release dates file and issues binned by release period") {
  test::TempDir dir;
  std::string releases = dir.write("r.json", R"({"releases": [
    {"opset": 9, "onnx": "1.4", "date": "2019-01-23"},
    {"opset": 10, "onnx": "1.5", "date": "2019-04-24"},
    {"opset": 11, "onnx": "1.6", "date": "2019-09-28"},
    {"opset": 99, "onnx": "9.9", "date": "2030-01-01"}]})");
  auto rel = reports::load_opset_releases(releases);
  REQUIRE(rel.size() == 4);
  CHECK_THROWS_AS(
      reports::load_opset_releases(dir.write("bad.json", "{\"releases\": [{\"opset\": 1}]}")),
      UserError);
  CHECK_THROWS_AS(reports::load_opset_releases(dir.file("missing.json")), UserError);
  CHECK_THROWS_AS(reports::load_opset_releases(dir.write(
                      "d.json", R"({"releases":[{"opset":1,"onnx":"1.0","date":"2017-13-01"}]})")),
                  UserError);
  // The shipped file is well formed and covers every opset the registry knows.
  auto shipped = reports::load_opset_releases(test::data_dir() + "/opset_releases.json");
  auto history = reports::opset_history();
  CHECK(shipped.front().opset == 1);
  CHECK(std::any_of(shipped.begin(), shipped.end(), [&](const reports::OpsetRelease& r) {
    return r.opset == history.back().version;
  }));

  auto db = open_database(dir.file("o.db"));
  import_files(
      *db,
      {dir.write("i.jsonl",
                 "{\"repo\":\"pytorch/pytorch\",\"number\":1,\"created_at\":\"2018-05-01\"}\n"
                 "{\"repo\":\"pytorch/pytorch\",\"number\":2,\"created_at\":\"2019-02-01\"}\n"
                 "{\"repo\":\"onnx/tensorflow-onnx\",\"number\":3,\"created_at\":\"2019-04-24\"}\n"
                 "{\"repo\":\"onnx/tensorflow-onnx\",\"number\":4,\"created_at\":\"2019-05-01\"}\n"
                 "{\"repo\":\"onnx/tensorflow-onnx\",\"number\":5,\"created_at\":\"2021-01-01\"}\n"
                 "{\"repo\":\"onnx/tensorflow-onnx\",\"number\":6}\n")});
  Taxonomy tax = Taxonomy::load(test::data_dir());
  auto bins = reports::bin_issues_by_opset(*db, tax, history, rel, {});
  REQUIRE(bins.periods.size() == 3);  // opset 99 is unknown to the registry
  CHECK(bins.periods[0].issues == 1);
  CHECK(bins.periods[0].issues_by_converter.at("torch.onnx") == 1);
  CHECK(bins.periods[1].issues == 2);  // the release day belongs to the new period
  CHECK(bins.periods[1].issues_by_converter.at("tf2onnx") == 2);
  CHECK(bins.periods[2].issues == 1);  // open until the next listed release (2030)
  CHECK(bins.periods[2].end == "2030-01-01");
  CHECK(bins.before == 1);
  CHECK(bins.undated == 1);
  // Changes of the first period: every opset up to 9 (nothing before it in the file).
  long upto9 = 0;
  for (const auto& v : history)
    if (v.version <= 9) upto9 += static_cast<long>(v.added.size() + v.updated.size());
  CHECK(bins.periods[0].changes == upto9);
  CHECK(bins.periods[1].changes ==
        static_cast<long>(history[9].added.size() + history[9].updated.size()));
  CHECK(bins.spearman ==
        doctest::Approx(reports::spearman(
            {double(upto9), double(bins.periods[1].changes), double(bins.periods[2].changes)},
            {1, 2, 1})));
  auto pt = reports::bin_issues_by_opset(*db, tax, history, rel, {"pytorch/pytorch"});
  CHECK(pt.periods[1].issues == 0);
  CHECK(pt.before == 1);
}
