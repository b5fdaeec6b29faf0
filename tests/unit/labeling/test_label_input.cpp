// Labels CSV from outside (issue 15): invalid UTF-8 and control characters refused with
// FILE:LINE, formula guards read back, and every export prints any stored text.
#include <doctest/doctest.h>

#include <random>
#include <sstream>

#include "core/csv.h"
#include "core/error.h"
#include "core/json_util.h"
#include "labeling/label_io.h"
#include "labeling/manual_labels.h"
#include "labeling_fixture.h"

using namespace convfail;
using convfail::test::LabelingFixture;

namespace label_input {
std::string import_error(LabelingFixture& f, const std::string& csv) {
  try {
    labeling::import_label_csv_text(*f.db, f.tax, csv, "in.csv", {});
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}
}  // namespace label_input

TEST_CASE("labels import: invalid UTF-8, NUL and control characters are refused with FILE:LINE") {
  LabelingFixture f;
  auto rows = f.rows();
  const std::string head = "repo,number,annotator,symptom,note\nacme/conv,1,A,crash,fine\n";
  CHECK(label_input::import_error(f, head + "acme/conv,2,A,crash,bad \xff note\n") ==
        "in.csv:3: column 5 (note): invalid UTF-8 at byte 5");
  CHECK(label_input::import_error(f, head + "acme/conv,2,A\xc0\x80,crash,x\n") ==
        "in.csv:3: column 3 (annotator): invalid UTF-8 at byte 2");
  CHECK(label_input::import_error(f, head + std::string("acme/conv,2,A,crash,cut\0here\n", 30)) ==
        "in.csv:3: column 5 (note): a NUL character at byte 4");
  CHECK(label_input::import_error(f, head + "acme/conv,2,A,crash,\"esc \x1b[31m\"\n") ==
        "in.csv:3: column 5 (note): control character U+001B at byte 5");
  CHECK(label_input::import_error(f, head + "acme/conv,2,A,crash,\"c1 \xc2\x9b\"\n") ==
        "in.csv:3: column 5 (note): control character U+009B at byte 4");
  CHECK(label_input::import_error(f, head + "acme/conv,2,\"A\tB\",crash,x\n") ==
        "in.csv:3: column 3 (annotator): control character U+0009 at byte 2");
  CHECK(label_input::import_error(f, head + "../x/y,2,A,crash,x\n") ==
        "in.csv:3: repo \"../x/y\" must be OWNER/NAME");
  CHECK(label_input::import_error(f, head + "acme/conv,9007199254740993,A,crash,x\n") ==
        "in.csv:3: number \"9007199254740993\" is not an integer in 1..9007199254740992");
  CHECK(f.rows() == rows);  // nothing written, not even the valid first row
  // Notes may hold tabs and line breaks (LF, CRLF).
  CHECK(label_input::import_error(f, head + "acme/conv,2,A,crash,\"a\tb\r\nc\nd\"\n") == "");
  CHECK(f.rows().size() == rows.size() + 2);
  Stmt st(*f.db, "SELECT note FROM manual_labels ORDER BY id DESC LIMIT 1");
  REQUIRE(st.step());
  CHECK(st.text(0) == "a\tb\r\nc\nd");
}

TEST_CASE("labels export: formula cells are neutralised, --raw-csv keeps them, import restores") {
  LabelingFixture f;
  const std::vector<std::string> notes = {"=HYPERLINK(\"http://evil\",\"click\")",
                                          "=cmd|' /C calc'!A0",
                                          "+1+1",
                                          "-2",
                                          "@SUM(A1)",
                                          "plain"};
  std::string csv = "repo,number,annotator,symptom,note\n";
  for (std::size_t i = 0; i < notes.size(); ++i)
    csv += csv_line(
        {"acme/conv", "1", "A" + std::string(i ? "" : "0") + std::to_string(i), "crash", notes[i]},
        true);
  // A raw file imports as written ("-2" and the rest are notes, not numbers).
  REQUIRE(label_input::import_error(f, csv) == "");
  std::ostringstream safe, raw;
  labeling::export_labels(*f.db, std::nullopt, labeling::LabelFormat::kCsv, safe);
  labeling::export_labels(*f.db, std::nullopt, labeling::LabelFormat::kCsv, raw, true);
  for (const CsvRecord& rec : parse_csv(safe.str())) {
    for (const std::string& cell : rec.fields) {
      CAPTURE(cell);
      bool number = cell == "-2" || cell == "1";
      CHECK((cell.empty() || number || std::string("=+-@\t\r").find(cell[0]) == std::string::npos));
    }
  }
  CHECK(raw.str().find(",=cmd|' /C calc'!A0,") != std::string::npos);
  // Round trip: the neutralised export imports back to the same notes.
  LabelingFixture g;
  REQUIRE(label_input::import_error(g, safe.str()) == "");
  std::ostringstream again;
  labeling::export_labels(*g.db, std::nullopt, labeling::LabelFormat::kCsv, again);
  CHECK(again.str() == safe.str());
  Stmt st(*g.db, "SELECT note FROM manual_labels WHERE note IS NOT NULL ORDER BY annotator");
  std::vector<std::string> back;
  while (st.step()) back.push_back(st.text(0));
  CHECK(back == notes);
}

TEST_CASE("labels fuzz: random-byte notes through import and every export") {
  std::mt19937 rng(1515);
  int inputs = 0, refused = 0, stored = 0;
  LabelingFixture f;
  for (int round = 0; round < 1500; ++round) {
    std::string note;
    std::size_t n = 1 + rng() % 40;
    for (std::size_t i = 0; i < n; ++i) {
      // Mostly text, sometimes any byte.
      note += rng() % 4 ? static_cast<char>('a' + rng() % 26) : static_cast<char>(rng() & 0xff);
    }
    std::string csv = "repo,number,annotator,symptom,note\n" +
                      csv_line({"acme/conv", std::to_string(1 + rng() % 5), "fz", "crash", note});
    ++inputs;
    auto rows = f.rows();
    std::string err;
    try {
      err = label_input::import_error(f, csv);
    } catch (const std::exception& e) {
      FAIL("round " << round << ": not a UserError: " << e.what());
    }
    if (err.empty()) {
      ++stored;
    } else {
      ++refused;
      CAPTURE(err);
      CHECK(err.rfind("in.csv:2: ", 0) == 0);
      CHECK(f.rows() == rows);
    }
  }
  // Text stored before validation (or by another tool): invalid UTF-8 and controls in the store.
  f.db->exec(
      "INSERT INTO manual_labels (issue_id, annotator, dimension, value, kind, note, source) "
      "SELECT id, 'old\xff', 'symptom', 'crash', 'label', 'bad \xc3\x28 \x01 note', 'sql' "
      "FROM issues LIMIT 1");
  for (auto format :
       {labeling::LabelFormat::kCsv, labeling::LabelFormat::kJsonl, labeling::LabelFormat::kJson}) {
    std::ostringstream out;
    CHECK_NOTHROW(labeling::export_labels(*f.db, std::nullopt, format, out));
    if (format != labeling::LabelFormat::kCsv)
      CHECK(out.str().find("\xef\xbf\xbd") != std::string::npos);
  }
  labeling::ManualLabels store(*f.db);
  Json rows = Json::array();
  for (const auto& r : store.history(f.issues[0], std::nullopt))
    rows.push_back({{"annotator", r.annotator}, {"note", r.note ? Json(*r.note) : Json()}});
  CHECK_NOTHROW(json_text(rows, 2));
  MESSAGE("labels fuzz: " << inputs << " inputs, " << refused << " refused, " << stored
                          << " stored, none crashed");
  CHECK(refused > 100);
  CHECK(stored > 100);
}
