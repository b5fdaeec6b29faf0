#include <doctest/doctest.h>

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
