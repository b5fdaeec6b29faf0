#include <doctest/doctest.h>

#include <sstream>

#include "core/csv.h"
#include "core/error.h"

using namespace convfail;

TEST_CASE("CSV: quoted commas, doubled quotes, embedded newlines and line numbers") {
  auto recs = parse_csv(
      "\xEF\xBB\xBFrepo,number,note\r\n"
      "a/b,1,\"one, two\"\n"
      "\n"
      "a/b,2,\"say \"\"hi\"\"\nsecond line\"\n"
      "a/b,3,\n");
  REQUIRE(recs.size() == 4);
  CHECK(recs[0].fields == std::vector<std::string>{"repo", "number", "note"});
  CHECK(recs[1].fields[2] == "one, two");
  CHECK(recs[1].line == 2);
  CHECK(recs[2].fields[2] == "say \"hi\"\nsecond line");
  CHECK(recs[2].line == 4);
  CHECK(recs[3].line == 6);
  CHECK(recs[3].fields.size() == 3);
  CHECK(recs[3].fields[2].empty());
}

TEST_CASE("CSV: malformed input names the line") {
  CHECK_THROWS_WITH_AS(parse_csv("a,b\n1,\"open\n2,3\n"), "2: unterminated quoted field",
                       UserError);
  CHECK_THROWS_WITH_AS(parse_csv("a,b\n1,\"x\"y\n"), "2: text after a closing quote", UserError);
  CHECK_THROWS_WITH_AS(parse_csv("a,b\n1,x\"y\n"), "2: quote inside an unquoted field", UserError);
}

TEST_CASE("CSV: writing quotes what needs it and reads back the same") {
  std::vector<std::string> fields = {"plain", "a,b", "say \"x\"", "two\nlines", "", " pad"};
  std::string line = csv_line(fields);
  CHECK(line == "plain,\"a,b\",\"say \"\"x\"\"\",\"two\nlines\",,\" pad\"\n");
  auto back = parse_csv(line);
  REQUIRE(back.size() == 1);
  CHECK(back[0].fields == fields);
}

TEST_CASE("CSV: formula cells are neutralised (OWASP) and read back exactly") {
  CHECK(csv_neutralise("=HYPERLINK(\"http://x\",\"y\")") == "'=HYPERLINK(\"http://x\",\"y\")");
  CHECK(csv_neutralise("=cmd|' /C calc'!A0") == "'=cmd|' /C calc'!A0");
  CHECK(csv_neutralise("+1+2") == "'+1+2");
  CHECK(csv_neutralise("-2+3") == "'-2+3");
  CHECK(csv_neutralise("@SUM(A1)") == "'@SUM(A1)");
  CHECK(csv_neutralise("\tx") == "'\tx");
  CHECK(csv_neutralise("\rx") == "'\rx");
  // Plain numbers cannot run anything and stay numbers in report columns.
  for (const char* n : {"-0.12", "-3", "+1e-5", "-.5", "12", "0.25"}) CHECK(csv_neutralise(n) == n);
  for (const char* t : {"plain", "", "a=b", "'quoted", "-", "+", "-e5", "--1"})
    CHECK(csv_neutralise(t) == (t[0] == '-' || t[0] == '+' ? "'" + std::string(t) : t));
  // Apostrophes before a trigger get one more, so that every value round-trips.
  CHECK(csv_neutralise("'=x") == "''=x");
  CHECK(csv_neutralise("'-1") == "''-1");
  for (const char* v : {"=1+1", "-0.12", "'=x", "''=x", "'-1", "'plain", "plain", "@", "'", "''",
                        "\t=x", "-", "'+"}) {
    CAPTURE(v);
    CHECK(csv_unneutralise(csv_neutralise(v)) == v);
  }
  // Whole lines: neutralised by default, raw on request, parsed back to the originals.
  std::vector<std::string> fields = {"=1+1", "a,b", "-0.5", "@x"};
  CHECK(csv_line(fields) == "'=1+1,\"a,b\",-0.5,'@x\n");
  CHECK(csv_line(fields, true) == "=1+1,\"a,b\",-0.5,@x\n");
  auto back = parse_csv(csv_line(fields));
  REQUIRE(back.size() == 1);
  for (std::size_t i = 0; i < fields.size(); ++i)
    CHECK(csv_unneutralise(back[0].fields[i]) == fields[i]);
}

// Issue #41: the labels CSV reader slurped a 200 MB note; a reader with limits stops at them.
TEST_CASE("CSV: the reader holds one record and stops at its limits") {
  std::string big = "repo,number,note\na/b,1,\"" + std::string(1000, 'x') + "\"\na/b,2,ok\n";
  std::istringstream in(big);
  CsvReader reader(in, CsvLimits{100, 1000});
  CsvRecord rec;
  REQUIRE(reader.next(&rec));
  CHECK(rec.fields.size() == 3);
  try {
    reader.next(&rec);
    FAIL("no error");
  } catch (const CsvTooLong& e) {
    CHECK(e.line == 2);
    CHECK(e.column == 3);
    CHECK(std::string(e.what()) == "2: column 3: a field longer than 100 bytes");
  }
  std::istringstream wide("a,b,c\n" + std::string(60, 'y') + "," + std::string(60, 'z') + "\n");
  CsvReader narrow(wide, CsvLimits{100, 100});
  REQUIRE(narrow.next(&rec));
  CHECK_THROWS_WITH_AS(narrow.next(&rec), "2: column 2: a record longer than 100 bytes",
                       CsvTooLong);
  // Records across the reader's 64 KB buffer, and no limits: as parse_csv.
  std::string many = "\xEF\xBB\xBFn,text\n";
  for (int i = 0; i < 5000; ++i)
    many += std::to_string(i) + ",\"line\n" + std::to_string(i) + "\"\n";
  auto recs = parse_csv(many);
  REQUIRE(recs.size() == 5001);
  CHECK(recs[0].fields[0] == "n");
  CHECK(recs[4999].fields[1] == "line\n4998");
  CHECK(recs[4999].line == 2 + 4998 * 2);
}
