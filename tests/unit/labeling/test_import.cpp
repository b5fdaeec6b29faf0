#include <doctest/doctest.h>

#include <sstream>

#include "core/error.h"
#include "labeling/label_io.h"
#include "labeling/label_sets.h"
#include "labeling/manual_labels.h"
#include "labeling_fixture.h"

using namespace convfail;
using namespace convfail::labeling;
using convfail::test::LabelingFixture;

namespace {
std::string error_of(LabelingFixture& f, const std::string& csv,
                     labeling::LabelImportOptions o = {}) {
  try {
    labeling::import_label_csv_text(*f.db, f.tax, csv, "in.csv", o);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("labels import: spreadsheet names, rater column, unknown issues skipped and counted") {
  LabelingFixture f;
  std::string csv =
      "repo,number,rater,symptom,cause,subtype,stage,note\n"
      "acme/conv,1,R1,Wrong Code,Incompatability,External,Node Transformation,\"a, b\"\n"
      "acme/conv,1,R2,crash,type_problem,node,Not Dis.,\n"
      "acme/conv,99,R1,crash,,,,\n"
      "other/repo,5,R1,crash,,,,\n";
  labeling::LabelImportResult r = labeling::import_label_csv_text(*f.db, f.tax, csv, "in.csv", {});
  CHECK(r.rows == 4);
  CHECK(r.written == 8);
  CHECK(r.skipped_unknown == 2);
  CHECK(r.unknown_issues == std::vector<std::string>{"acme/conv#99", "other/repo#5"});
  CHECK(r.annotators == std::vector<std::string>{"R1", "R2"});
  auto r1 = labeling::load_annotator_labels(*f.db, "R1");
  REQUIRE(r1.size() == 1);
  CHECK(r1[0].values["symptom"] == "wrong_model");
  CHECK(r1[0].values["cause"] == "incompatibility");
  CHECK(r1[0].values["subtype"] == "external");
  CHECK(r1[0].values["stage"] == "node_conversion");
  CHECK(f.rows()[0].find("|a, b|import:in.csv|") != std::string::npos);

  // Importing again changes nothing: equal values are not appended.
  labeling::LabelImportResult again =
      labeling::import_label_csv_text(*f.db, f.tax, csv, "in.csv", {});
  CHECK(again.written == 0);
  CHECK(again.unchanged == 8);
}

TEST_CASE("labels import: --create-missing makes placeholder issues") {
  LabelingFixture f(1);
  labeling::LabelImportOptions o;
  o.annotator = "ann";
  o.create_missing = true;
  auto r = labeling::import_label_csv_text(*f.db, f.tax, "repo,number,cause\nnew/repo,7,typo\n",
                                           "x.csv", o);
  CHECK(r.created_issues == 1);
  CHECK(r.written == 1);
  CHECK(f.db->scalar("SELECT count(*) FROM issues") == 2);
  CHECK(IssueStore(*f.db).find_issue("new/repo", 7).has_value());
}

TEST_CASE("labels import: malformed files write nothing and name file:line") {
  LabelingFixture f;
  const std::string ok_row = "acme/conv,1,R1,crash\n";
  CHECK(error_of(f, "repo,number,rater,symptom\n" + ok_row + "acme/conv,2,R1,\"crash\n") ==
        "in.csv:3: unterminated quoted field");
  CHECK(error_of(f, "repo,number,rater,symptom\n" + ok_row + "acme/conv,2,R1\n") ==
        "in.csv:3: 3 field(s), the header has 4");
  CHECK(error_of(f, "repo,number,rater,symptom\n" + ok_row + "acme/conv,2,R1,explosion\n")
            .rfind("in.csv:3: unknown symptom \"explosion\"; valid: crash, wrong_model", 0) == 0);
  CHECK(error_of(f, "repo,number,rater,cause,subtype\nacme/conv,1,R1,typo,node\n") ==
        "in.csv:2: cause \"typo\" has no subtypes (subtype \"node\" refused)");
  CHECK(error_of(f, "repo,number,rater,cause,subtype\nacme/conv,1,R1,type_problem,external\n") ==
        "in.csv:2: subtype \"external\" does not belong to cause \"type_problem\"; valid: node, "
        "tensor, conventional");
  CHECK(error_of(f, "repo,number,rater,symptom\n" + ok_row + "acme/conv,x2,R1,crash\n") ==
        "in.csv:3: number \"x2\" is not an integer in 1..9007199254740992");
  CHECK(error_of(f, "number,symptom\n1,crash\n") ==
        "in.csv:1: the header needs columns \"repo\" and \"number\"");
  CHECK(error_of(f, "repo,number,title\nacme/conv,1,x\n") ==
        "in.csv:1: no label column (symptom, cause, subtype or stage)");
  CHECK(error_of(f, "") == "in.csv:1: empty file (expected a header with repo and number)");
  CHECK(error_of(f, "repo,number,symptom\nacme/conv,1,crash\n") ==
        "in.csv: no rater/annotator column: give --annotator NAME");
  // The valid first row of each bad file was rolled back.
  CHECK(f.rows().empty());
  CHECK(f.db->scalar("SELECT count(*) FROM issues") == 5);
}

TEST_CASE("labels export: CSV reads back into the same current labels") {
  LabelingFixture f;
  labeling::ManualLabels store(*f.db);
  labeling::record_labels(*f.db, f.tax, f.issues[0], "A",
                          {"crash", "incompatibility", "internal", "export",
                           std::string("note, with \"quotes\"\nand a line")},
                          "cli");
  labeling::record_labels(*f.db, f.tax, f.issues[0], "A",
                          {std::nullopt, "type_problem", "tensor", {}, {}}, "cli");
  labeling::record_labels(*f.db, f.tax, f.issues[1], "B", {"hang", {}, {}, {}, {}}, "cli");
  labeling::append_choice(store, f.tax, f.issues[1], "J", {"crash", {}, {}, {}, {}}, "t",
                          "adjudication");
  std::ostringstream csv;
  CHECK(labeling::export_labels(*f.db, std::nullopt, labeling::LabelFormat::kCsv, csv) == 3);
  CHECK(csv.str().find("acme/conv,2,J,crash,,,,,,,,adjudication\n") != std::string::npos);

  LabelingFixture g;
  auto r = labeling::import_label_csv_text(*g.db, g.tax, csv.str(), "export.csv", {});
  CHECK(r.skipped_unknown == 0);
  CHECK(g.db->scalar("SELECT count(*) FROM manual_labels WHERE kind='adjudication'") == 1);
  for (const char* who : {"A", "B", "J"}) {
    auto a = labeling::load_annotator_labels(*f.db, who),
         b = labeling::load_annotator_labels(*g.db, who);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i].values == b[i].values);
  }
  std::ostringstream again;
  labeling::export_labels(*g.db, std::nullopt, labeling::LabelFormat::kCsv, again);
  CHECK(again.str() == csv.str());

  std::ostringstream jsonl;
  CHECK(labeling::export_labels(*f.db, std::string("A"), labeling::LabelFormat::kJsonl, jsonl) ==
        1);
  auto j = nlohmann::json::parse(jsonl.str());
  CHECK(j["cause"] == "type_problem");
  CHECK(j["subtype"] == "tensor");
  CHECK(j["number"] == 1);
  // The note stays on the dimensions it was given with (the new cause and subtype have none).
  CHECK(j["notes"] == nlohmann::json{{"symptom", "note, with \"quotes\"\nand a line"},
                                     {"stage", "note, with \"quotes\"\nand a line"}});

  // JSON: the same objects as JSONL, as one array.
  std::ostringstream lines, array;
  CHECK(labeling::export_labels(*f.db, std::nullopt, labeling::LabelFormat::kJsonl, lines) == 3);
  CHECK(labeling::export_labels(*f.db, std::nullopt, labeling::LabelFormat::kJson, array) == 3);
  auto all = nlohmann::json::parse(array.str());
  REQUIRE(all.is_array());
  REQUIRE(all.size() == 3);
  std::istringstream in(lines.str());
  std::string line;
  for (std::size_t i = 0; std::getline(in, line); ++i) CHECK(all[i] == nlohmann::json::parse(line));
  CHECK(all[2]["annotator"] == "J");
  CHECK(all[2]["kind"] == "adjudication");

  std::ostringstream none;
  CHECK(labeling::export_labels(*f.db, std::string("nobody"), labeling::LabelFormat::kJson, none) ==
        0);
  CHECK(nlohmann::json::parse(none.str()) == nlohmann::json::array());
}

TEST_CASE("label: unknown ids and foreign subtypes are refused with the valid ones") {
  LabelingFixture f;
  auto id = f.issues[0];
  CHECK_THROWS_WITH_AS(
      labeling::record_labels(*f.db, f.tax, id, "A", {"boom", {}, {}, {}, {}}, "cli"),
      "unknown symptom \"boom\"; valid: crash, wrong_model, bad_performance, "
      "hang, build_failure, unreported",
      UserError);
  CHECK_THROWS_WITH_AS(
      labeling::record_labels(*f.db, f.tax, id, "A", {{}, "incompatibility", "node", {}, {}},
                              "cli"),
      "subtype \"node\" does not belong to cause \"incompatibility\"; valid: internal, external, "
      "resource",
      UserError);
  CHECK_THROWS_AS(labeling::record_labels(*f.db, f.tax, id, "A", {{}, {}, "node", {}, {}}, "cli"),
                  UserError);
  // With a current cause, a subtype alone is checked against it.
  labeling::record_labels(*f.db, f.tax, id, "A", {{}, "Type Problem", {}, {}, {}}, "cli");
  CHECK(labeling::record_labels(*f.db, f.tax, id, "A", {{}, {}, "Node", {}, {}}, "cli").written ==
        1);
  CHECK(f.rows().size() == 2);
  // Changing the cause clears a subtype that does not belong to the new cause.
  CHECK(labeling::record_labels(*f.db, f.tax, id, "A", {{}, "typo", {}, {}, {}}, "cli").written ==
        2);
  auto now = labeling::load_annotator_labels(*f.db, "A");
  CHECK(now[0].values == std::map<std::string, std::string>{{"cause", "typo"}});
  CHECK(parse_issue_ref("acme/conv#12").number == 12);
  CHECK(parse_issue_ref("https://github.com/acme/conv/issues/3").repo == "acme/conv");
  CHECK_THROWS_AS(parse_issue_ref("acme-conv-12"), UsageError);
}
