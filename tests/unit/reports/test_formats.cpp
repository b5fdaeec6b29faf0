#include <doctest/doctest.h>

#include <re2/re2.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <vector>

#include "core/error.h"
#include "core/taxonomy.h"
#include "reports/render.h"
#include "reports_fixture.h"
#include "repro/bisect_history.h"
#include "repro/verdict_store.h"

using namespace convfail;
using namespace convfail::reports;

namespace {

struct Rendered {
  reports::ReportData data;
  reports::PrintedReport printed;
};

Rendered fixture_report(const test::TempDir& dir) {
  auto db = test::report_fixture(dir, true, true);
  reports::ReportOptions o;
  o.source = "ann";
  o.compare = "bob";
  o.verdicts = repro::latest_issue_verdicts(*db);
  o.histories = repro::runtime_histories(*db);
  Taxonomy tax = Taxonomy::load(test::data_dir());
  reports::ReportData d = reports::build_report(*db, tax, o);
  return {d, reports::printed_report(d, tax)};
}

long count(const std::string& text, const std::string& what) {
  long n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + what.size())) ++n;
  return n;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("report format: markdown has one heading and pipe table per table") {
  test::TempDir dir;
  auto r = fixture_report(dir);
  std::string md = reports::render_markdown(r.printed);
  CHECK(count(md, "\n## ") == static_cast<long>(r.printed.tables.size()));
  CHECK(md.find("| Incompatibility | 1 / 1 | 0 / 0 | 0 / 0 | 1 / 1 |") != std::string::npos);
  // Every line of a table has as many cells as its header.
  long expected = -1;
  for (const auto& l : lines(md)) {
    if (l.empty() || l[0] != '|') {
      expected = -1;
      continue;
    }
    if (expected < 0) expected = count(l, "|");
    CHECK(count(l, "|") == expected);
  }
}

TEST_CASE("report format: csv is tidy long form, one value per line") {
  test::TempDir dir;
  auto r = fixture_report(dir);
  std::string csv = reports::render_csv(r.printed);
  auto ls = lines(csv);
  REQUIRE(!ls.empty());
  CHECK(ls[0] == "table,row,column,value");
  auto has = [&](const std::string& line) { return std::count(ls.begin(), ls.end(), line) == 1; };
  // A count and its share are two values; a cell per converter is one value per converter.
  CHECK(has("stage_by_converter,Node Conversion,Total,3"));
  CHECK(has("stage_by_converter,Node Conversion,Share of total,0.4286"));
  CHECK(has("cause_by_symptom,Other,Other (tf2onnx),0"));
  CHECK(has("cause_by_symptom,Other,Other (torch.onnx),1"));
  // The kappa interval's ends are two values.
  CHECK(csv.find("agreement,Symptom,95% CI low,") != std::string::npos);
  CHECK(csv.find("agreement,Symptom,95% CI high,") != std::string::npos);
  // No value holds a share, a slash-joined pair or an interval.
  static const RE2 compound(R"([0-9] \(|%\)| / |,"?\[)");
  for (std::size_t i = 1; i < ls.size(); ++i)
    CHECK_MESSAGE(!RE2::PartialMatch(ls[i], compound), ls[i]);
  // A table without compound cells is written cell by cell.
  std::size_t subtype_cells = 0;
  for (const auto& t : r.printed.tables)
    if (t.id == "subtype_by_converter") subtype_cells = t.rows.size() * (t.header.size() - 1);
  CHECK(std::count_if(ls.begin(), ls.end(), [](const std::string& l) {
          return l.rfind("subtype_by_converter,", 0) == 0;
        }) == static_cast<long>(subtype_cells));
}

TEST_CASE("report format: latex is table fragments by default") {
  test::TempDir dir;
  auto r = fixture_report(dir);
  std::string tex = reports::render_latex(r.printed);
  long n = static_cast<long>(r.printed.tables.size());
  CHECK(count(tex, "\\documentclass") == 0);
  CHECK(count(tex, "\n\\usepackage") == 0);  // named in the leading comment only
  CHECK(count(tex, "document}") == 0);
  CHECK(count(tex, "\\begin{table}") == n);
  CHECK(count(tex, "\\end{table}") == n);
  CHECK(tex.find("\\label{tab:stage-by-converter}") != std::string::npos);
  CHECK(count(tex, "\\label{tab:") == n);
}

TEST_CASE("report format: latex --standalone is a booktabs document with one tabular per table") {
  test::TempDir dir;
  auto r = fixture_report(dir);
  std::string tex = reports::render_latex(r.printed, true);
  long n = static_cast<long>(r.printed.tables.size());
  CHECK(count(tex, "\\usepackage{booktabs}") == 1);
  CHECK(count(tex, "\\begin{tabular}") == n);
  CHECK(count(tex, "\\end{tabular}") == n);
  CHECK(count(tex, "\\toprule") == n);
  CHECK(count(tex, "\\bottomrule") == n);
  CHECK(count(tex, "\\begin{document}") == 1);
  CHECK(count(tex, "\\end{document}") == 1);
  CHECK(tex.find("\\label{tab:stage-by-converter}") != std::string::npos);
  CHECK(tex.find("3 (43\\%)") != std::string::npos);
  CHECK(tex.find("→") == std::string::npos);  // the arrow became math
  // Each row has as many cells as its column spec.
  static const RE2 spec(R"(\\begin\{tabular\}\{(lr*)\})");
  static const RE2 any_spec(R"(\\begin\{tabular\}\{([lr]+)\})");
  long specs = 0;
  re2::StringPiece rest(tex);
  while (RE2::FindAndConsume(&rest, spec)) ++specs;
  CHECK(specs == n);
  std::size_t columns = 0;
  for (const auto& l : lines(tex)) {
    std::string letters;
    if (RE2::PartialMatch(l, any_spec, &letters)) columns = letters.size();
    if (l.size() > 3 && l.substr(l.size() - 3) == " \\\\") {
      // "&" not preceded by a backslash separates cells.
      long amps = 0;
      for (std::size_t i = 0; i < l.size(); ++i)
        if (l[i] == '&' && (i == 0 || l[i - 1] != '\\')) ++amps;
      CHECK(static_cast<std::size_t>(amps + 1) == columns);
    }
  }
}

TEST_CASE("report format: html is self-contained with one svg per chart") {
  test::TempDir dir;
  auto r = fixture_report(dir);
  std::string html = reports::render_html(r.printed);
  CHECK(count(html, "<svg ") == static_cast<long>(r.printed.charts.size()));
  CHECK(r.printed.charts.size() == 5);  // stage, symptom, cause, period, repro
  CHECK(count(html, "<table>") == static_cast<long>(r.printed.tables.size()));
  CHECK(count(html, "<script") == 0);
  CHECK(count(html, "src=") == 0);
  CHECK(count(html, "href=") == 0);
  CHECK(count(html, "@media print") == 1);
  // Balanced tags (the e2e test parses it as XML).
  for (const char* tag : {"table", "svg", "section", "figure", "tr", "text", "thead", "tbody"})
    CHECK(count(html, std::string("<") + tag + ">") + count(html, std::string("<") + tag + " ") ==
          count(html, std::string("</") + tag + ">"));
  CHECK(html.find("&lt;") == std::string::npos);  // nothing needed escaping in this report
}

TEST_CASE("report format: json has the full unbinned counts in the issue's shape") {
  test::TempDir dir;
  auto r = fixture_report(dir);
  auto j = nlohmann::json::parse(reports::render_json(r.data));
  CHECK(j["stage_by_converter"]["torch.onnx"]["node_conversion"] == 2);
  CHECK(j["symptom_by_converter"]["tf2onnx"]["build_failure"] == 1);
  CHECK(j["cause_by_symptom"]["torch.onnx"]["others"]["hang"] == 1);  // not binned
  CHECK(j["cause_by_symptom"]["torch.onnx"]["incompatibility"]["crash"] == 1);
  CHECK(j["subtype_by_converter"]["tf2onnx"]["incompatibility"]["internal"] == 1);
  CHECK(j["issues_by_period"]["2020"]["torch.onnx"] == 2);
  CHECK(j["agreement"][0]["dimension"].is_string());
  CHECK(j["repro_by_symptom"]["crash"]["confirmed"] == 1);
  CHECK(j["issues"] == 7);
}

TEST_CASE("report format: names parse, unknown ones are usage errors") {
  CHECK(reports::parse_report_format("md") == reports::ReportFormat::kMarkdown);
  CHECK(reports::parse_report_format("latex") == reports::ReportFormat::kLatex);
  CHECK(reports::parse_report_format("html") == reports::ReportFormat::kHtml);
  CHECK_THROWS_AS(reports::parse_report_format("pdf"), UsageError);
}

TEST_CASE("report format: html charts leave room for long rotated category labels, y axis ticks") {
  // A chart whose first or second category is 40 characters wide: the viewBox grows left and
  // down so every label, rotated to the lower left of its bar, stays inside the svg.
  auto chart_of = [](const std::vector<std::string>& categories, long top_value) {
    reports::PrintedReport p;
    p.title = "t";
    reports::Table t;
    t.id = "x";
    t.title = "x";
    t.header = {"c", "n"};
    p.tables.push_back(t);
    reports::BarChart c;
    c.table_id = "x";
    c.title = "x";
    c.categories = categories;
    c.series = {"s"};
    c.values = {{1}, {top_value}};
    p.charts.push_back(c);
    return reports::render_html(p);
  };
  // The y axis is the vertical line from the plot's top (30) to its base (210).
  auto geometry = [](const std::string& html, int* axis_x, int* height) {
    REQUIRE(RE2::PartialMatch(html, R"re(viewBox="0 0 \d+ (\d+)")re", height));
    REQUIRE(RE2::PartialMatch(html, R"re(<line x1="(\d+)" y1="30" x2="\d+" y2="210")re", axis_x));
  };
  // The leftmost point of each rotated label: its anchor minus 0.82 of its width (7 px a char).
  auto leftmost = [](const std::string& html) {
    re2::StringPiece in(html);
    int x = 0, y = 0;
    std::string label;
    double least = 1e9;
    while (RE2::FindAndConsume(
        &in,
        R"re(<text x="(\d+)" y="(\d+)" text-anchor="end" font-size="11" transform="rotate[^>]*>([^<]*)<)re",
        &x, &y, &label))
      least = std::min(least, x - 0.82 * 7 * static_cast<double>(label.size()));
    return least;
  };
  int short_x = 0, short_h = 0, long_x = 0, long_h = 0, second_x = 0, second_h = 0;
  std::string shorter = chart_of({"a", "b"}, 2), first = chart_of({std::string(40, 'w'), "b"}, 2),
              second = chart_of({"a", std::string(40, 'w')}, 2);
  geometry(shorter, &short_x, &short_h);
  geometry(first, &long_x, &long_h);
  geometry(second, &second_x, &second_h);
  CHECK(short_x == 60);
  CHECK(long_x > short_x);
  CHECK(second_x > short_x);
  CHECK(leftmost(first) >= 0);
  CHECK(leftmost(second) >= 0);  // a long label after the first one (stage "Load Model")
  // 40 characters at 7 px: 280 px, 160 px down when rotated by 35 degrees.
  CHECK(long_h >= 30 + 180 + 160);
  // Ticks: 0..axis maximum in steps of 1, 2 or 5 times a power of ten, each labelled.
  auto ticks = [](const std::string& html) {
    re2::StringPiece in(html);
    std::string v;
    std::vector<std::string> out;
    while (RE2::FindAndConsume(&in, R"re(text-anchor="end" font-size="10">(\d+)<)re", &v))
      out.push_back(v);
    return out;
  };
  CHECK(ticks(shorter) == std::vector<std::string>{"0", "1", "2"});
  CHECK(ticks(chart_of({"a", "b"}, 37)) == std::vector<std::string>{"0", "10", "20", "30", "40"});
  CHECK(ticks(chart_of({"a", "b"}, 1234)) == std::vector<std::string>{"0", "500", "1000", "1500"});
}
