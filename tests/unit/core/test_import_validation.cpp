// Import of hostile input (issue 15): the schema of core/issue_schema.h, BOM, NUL, size limits,
// deep nesting, and a seeded fuzz run asserting no crash, the FILE:LINE message shape and an
// unchanged database for every refused input.
#include <doctest/doctest.h>

#include <random>

#include "core/error.h"
#include "core/importer.h"
#include "core/issue_schema.h"
#include "core/issue_store.h"
#include "core/migrations.h"
#include "test_helpers.h"

using namespace convfail;

namespace import_validation {

// Every stored row of the tables import writes: equal strings mean an unchanged database.
std::string dump(Db& db) {
  std::string out;
  for (const char* sql :
       {"SELECT full_name FROM repositories ORDER BY id",
        "SELECT number || '|' || title || '|' || coalesce(body, '~') || '|' || "
        "coalesce(state, '~') || '|' || coalesce(created_at, '~') || '|' || raw_json || '|' || "
        "body_truncated FROM issues ORDER BY id",
        "SELECT issue_id || '|' || name FROM issue_labels ORDER BY 1",
        "SELECT issue_id || '|' || position || '|' || coalesce(body, '~') FROM comments ORDER BY "
        "id",
        "SELECT issue_id || '|' || position || '|' || raw_json FROM timeline_events ORDER BY id"}) {
    Stmt st(db, sql);
    while (st.step()) out += st.text(0) + "\n";
    out += "--\n";
  }
  return out;
}

struct Fixture {
  test::TempDir dir;
  std::unique_ptr<Db> db = open_database(dir.file("v.db"));
  int n = 0;

  // Imports `text` as one file; "" on success, else the error message.
  std::string import(const std::string& text, const std::string& ext = ".jsonl",
                     ImportOptions o = {}) {
    std::string path = dir.write("in" + std::to_string(++n) + ext, text);
    try {
      import_files(*db, {path}, o);
    } catch (const UserError& e) {
      std::string msg = e.what();
      // Every refusal names the file and line first.
      CHECK(msg.rfind(path + ":", 0) == 0);
      return msg.substr(path.size() + 1);
    }
    return "";
  }
};

}  // namespace import_validation

using import_validation::Fixture;

TEST_CASE("import validation: wrong types, numbers, names and dates are refused, nothing stored") {
  Fixture f;
  REQUIRE(f.import(R"({"repo": "a/b", "number": 1, "title": "kept"})") == "");
  std::string before = import_validation::dump(*f.db);
  struct Case {
    const char* json;
    const char* message;  // after "FILE:"
  };
  const Case cases[] = {
      {R"({"repo": "a/b", "number": 9223372036854775813})",
       "1: number: 9223372036854775813 is not an integer in 1..9007199254740992"},
      {R"({"repo": "a/b", "number": -1})",
       "1: number: -1 is not an integer in 1..9007199254740992"},
      {R"({"repo": "a/b", "number": 0})", "1: number: 0 is not an integer in 1..9007199254740992"},
      {R"({"repo": "a/b", "number": 9007199254740993})",
       "1: number: 9007199254740993 is not an integer in 1..9007199254740992"},
      {R"({"repo": "a/b", "number": 1.5})",
       "1: number: 1.5 is not an integer in 1..9007199254740992"},
      {R"({"repo": "a/b", "number": "7"})", "1: number: expected an integer, got a string"},
      {R"({"repo": "a/b"})", "1: number: missing"},
      {R"({"repo": "a/b", "number": 2, "body": 123})",
       "1: body: expected a string, got an integer"},
      {R"({"repo": "a/b", "number": 2, "title": ["x"]})",
       "1: title: expected a string, got an array"},
      {R"({"repo": "a/b", "number": 2, "state": 5})",
       "1: state: expected a string, got an integer"},
      {R"({"repo": "a/b", "number": 2, "labels": "bug"})",
       "1: labels: expected an array, got a string"},
      {R"({"repo": "a/b", "number": 2, "labels": [{"name": 3}]})",
       "1: labels[0].name: expected a string"},
      {R"({"repo": "a/b", "number": 2, "user": {"login": 7}})",
       "1: user.login: expected a string, got an integer"},
      {R"({"repo": "a/b", "number": 2, "comments": [{"body": "ok"}, {"body": false}]})",
       "1: comments[1].body: expected a string, got a boolean"},
      {R"({"repo": "a/b", "number": 2, "comments": -3})",
       "1: comments: expected an array of comments or a count, got a negative integer"},
      {R"({"repo": "a/b", "number": 2, "timeline": [{"event": "closed", "created_at": "x"}]})",
       "1: timeline[0].created_at: \"x\" is not an ISO-8601 date or time (YYYY-MM-DD[THH:MM:SSZ])"},
      {R"({"repo": "a/b", "number": 2, "created_at": "not a date"})",
       "1: created_at: \"not a date\" is not an ISO-8601 date or time (YYYY-MM-DD[THH:MM:SSZ])"},
      {R"({"repo": "a/b", "number": 2, "closed_at": "2024-02-30T00:00:00Z"})",
       "1: closed_at: \"2024-02-30T00:00:00Z\" is not an ISO-8601 date or time "
       "(YYYY-MM-DD[THH:MM:SSZ])"},
      {R"({"repo": "../../etc", "number": 2})",
       "1: repo: \"../../etc\" is not OWNER/NAME (owner: up to 39 letters, digits or '-'; name: "
       "up to 100 letters, digits, '-', '_' or '.')"},
      {R"({"repo": "a/b/c; drop table issues", "number": 2})",
       "1: repo: \"a/b/c; drop table issues\" is not OWNER/NAME (owner: up to 39 letters, "
       "digits or '-'; name: up to 100 letters, digits, '-', '_' or '.')"},
      {R"({"repo": "a/b", "number": 2, "title": "ti\u0000tle"})",
       "1: title: contains a NUL character (\\u0000) at byte 2: not stored, remove it from the "
       "file"},
      {"[1]", "1: expected a JSON object, got an array"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.json);
    // Behind a valid first line: the error names line 2 and the valid line is not stored either.
    std::string msg = f.import(std::string(R"({"repo": "a/b", "number": 5})") + "\n" + c.json);
    std::string expected = c.message;
    expected[0] = '2';
    CHECK(msg == expected);
    CHECK(import_validation::dump(*f.db) == before);
  }
  // The edges that are allowed.
  CHECK(f.import(R"({"repo": "a/b", "number": 9007199254740992, "created_at": "2018-04-19"})") ==
        "");
  CHECK(f.import(R"({"repo": "A-1/x_y.z-", "number": 1, "labels": ["bug", {"name": "x"}]})") == "");
}

TEST_CASE("import validation: repository names follow GitHub's rules") {
  for (const char* ok : {"a/b", "pytorch/pytorch", "onnx/tensorflow-onnx", "a-b/c.d_e", "0/.x"})
    CHECK_MESSAGE(valid_repo_name(ok), ok);
  for (const char* bad : {"", "a", "/b", "a/", "a/b/c", "-a/b", "a_b/c", "a.b/c", "a/.", "a/..",
                          "a/b c", "a/b;", "a/\xc3\xa9", "../../etc"})
    CHECK_MESSAGE(!valid_repo_name(bad), bad);
  CHECK(valid_repo_name(std::string(39, 'o') + "/" + std::string(100, 'n')));
  CHECK(!valid_repo_name(std::string(40, 'o') + "/n"));
  CHECK(!valid_repo_name("o/" + std::string(101, 'n')));
  // --repo goes through the same check.
  Fixture f;
  ImportOptions o;
  o.default_repo = "x/y/z";
  CHECK(f.import(R"({"number": 1})", ".jsonl", o).find("1: repository: \"x/y/z\" is not") == 0);
}

TEST_CASE("import validation: a UTF-8 BOM is skipped in JSON and JSONL") {
  Fixture f;
  CHECK(f.import("\xEF\xBB\xBF[{\"repo\": \"a/b\", \"number\": 1}]", ".json") == "");
  CHECK(f.import("\xEF\xBB\xBF{\"repo\": \"a/b\", \"number\": 2}\n", ".jsonl") == "");
  CHECK(f.db->scalar("SELECT count(*) FROM issues") == 2);
  // At the start of a later JSONL line (concatenated files) the parser skips it too.
  CHECK(f.import(
            "{\"repo\": \"a/b\", \"number\": 3}\n\xEF\xBB\xBF{\"repo\": \"a/b\", \"number\": 4}") ==
        "");
  CHECK(f.db->scalar("SELECT count(*) FROM issues") == 4);
  // Anywhere else it is not JSON.
  CHECK(f.import("{\"repo\": \"a/b\", \"number\": \xEF\xBB\xBF"
                 "5}")
            .rfind("1: malformed JSON: ", 0) == 0);
}

TEST_CASE("import validation: invalid UTF-8 and overlong forms are refused by the parser") {
  Fixture f;
  for (const char* bad : {"\xff", "\xc0\x80", "\xe0\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80"}) {
    std::string msg =
        f.import(std::string("{\"repo\": \"a/b\", \"number\": 1, \"body\": \"x") + bad + "\"}");
    CAPTURE(msg);
    CHECK(msg.rfind("1: malformed JSON: ", 0) == 0);
    // The message quotes what was read, escaped: no raw byte >= 0x80 or control character.
    for (char c : msg)
      CHECK((static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x80));
  }
  CHECK(
      f.import(R"({"repo": "a/b", "number": 1, "body": "\ud800"})").rfind("1: malformed JSON", 0) ==
      0);
  CHECK(f.db->scalar("SELECT count(*) FROM issues") == 0);
}

TEST_CASE("import validation: deep nesting is refused before parsing, without recursion") {
  Fixture f;
  std::string deep = "{\"repo\": \"a/b\", \"number\": 1, \"x\": " + std::string(100000, '[') +
                     std::string(100000, ']') + "}";
  CHECK(f.import(deep) == "1: JSON nested deeper than 64 levels");
  CHECK(f.import("[" + std::string(100000, '{')) == "1: unterminated array");
  CHECK(f.import(std::string(100000, '[')) == "1: unterminated array");
  std::string ok = "{\"repo\": \"a/b\", \"number\": 1, \"x\": " + std::string(63, '[') +
                   std::string(63, ']') + "}";
  CHECK(f.import(ok) == "");
  CHECK(json_nesting_depth(R"({"a": "[[[[", "b": [{}]})") == 3);
}

TEST_CASE("import validation: bodies over --max-field-mb are refused, or cut and flagged") {
  Fixture f;
  std::string big(std::size_t{3} << 20, 'x');
  big[(std::size_t{1} << 20) - 1] = '\xc3';  // a two-byte character across the limit
  big[std::size_t{1} << 20] = '\xa9';
  std::string issue = R"({"repo": "a/b", "number": 1, "body": ")" + big +
                      R"(", "comments": [{"body": ")" + big + R"("}]})";
  CHECK(f.import(issue) ==
        "1: body: 3145728 bytes, over the limit of 1 MB (--max-field-mb; --truncate-long-fields "
        "keeps the first part)");
  ImportOptions o;
  o.limits.max_field_bytes = std::size_t{4} << 20;
  CHECK(f.import(issue, ".jsonl", o) == "");  // a larger limit takes it
  // Far over the limit: refused before parsing, naming the member.
  std::string huge = R"({"repo": "a/b", "number": 1, "comments": [{"body": ")" +
                     std::string(std::size_t{7} << 20, 'y') + R"("}]})";
  CHECK(f.import(huge) ==
        "1: body: a string of 7340032 bytes of JSON text, over the limit of 1 MB (--max-field-mb)");
  Fixture g;
  o.limits.max_field_bytes = std::size_t{1} << 20;
  o.limits.truncate = true;
  CHECK(g.import(issue, ".jsonl", o) == "");
  // Cut before the character that crosses the limit: valid UTF-8, flagged, raw_json cut too.
  CHECK(g.db->scalar("SELECT length(CAST(body AS BLOB)) FROM issues") == (1 << 20) - 1);
  CHECK(g.db->scalar("SELECT body_truncated FROM issues") == 1);
  CHECK(g.db->scalar("SELECT length(raw_json) < 1100000 FROM issues") == 1);
  CHECK(g.db->scalar("SELECT length(CAST(body AS BLOB)) FROM comments") == (1 << 20) - 1);
  CHECK(g.db->scalar("SELECT body_truncated FROM comments") == 1);
  // A title is not truncatable; unknown fields are bounded through raw_json.
  CHECK(g.import(R"({"repo": "a/b", "number": 2, "title": ")" + big + "\"}", ".jsonl", o)
            .rfind("1: title: 3145728 bytes, over the limit of 1 MB", 0) == 0);
  CHECK(g.import(R"({"repo": "a/b", "number": 2, "extra": ")" + big + big + "\"}", ".jsonl", o)
            .rfind("1: object: ", 0) == 0);
}

TEST_CASE("import validation: the crawler's path (IssueStore) applies the same schema") {
  test::TempDir dir;
  auto db = open_database(dir.file("s.db"));
  IssueStore store(*db);
  std::int64_t id = 0;
  CHECK_THROWS_WITH_AS(store.upsert_issue("a/b", Json{{"number", -1}}, &id),
                       "number: -1 is not an integer in 1..9007199254740992", UserError);
  CHECK_THROWS_WITH_AS(store.upsert_issue("a/b", Json{{"number", 1}, {"title", 5}}, &id),
                       "title: expected a string, got an integer", UserError);
  CHECK_THROWS_AS(store.upsert_issue("../x", Json{{"number", 1}}, &id), UserError);
  store.upsert_issue("a/b", Json{{"number", 1}}, &id);
  CHECK_THROWS_WITH_AS(store.store_comments(id, Json::array({Json{{"created_at", "soon"}}})),
                       "comments[0].created_at: \"soon\" is not an ISO-8601 date or time "
                       "(YYYY-MM-DD[THH:MM:SSZ])",
                       UserError);
  CHECK_THROWS_WITH_AS(store.store_timeline(id, "a/b", Json::array({1})),
                       "timeline[0]: expected an object, got an integer", UserError);
}

TEST_CASE("import fuzz: seeded malformed and adversarial inputs never crash or change the store") {
  Fixture f;
  REQUIRE(f.import(R"({"repo": "base/line", "number": 1, "title": "baseline"})") == "");
  std::mt19937 rng(15);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  const std::string valid =
      R"({"repo": "fz/z", "number": 7, "title": "t", "body": "b", "state": "open",)"
      R"( "labels": [{"name": "bug"}], "created_at": "2024-01-02T03:04:05Z",)"
      R"( "comments": [{"body": "c", "user": {"login": "u"}, "created_at": "2024-01-03"}],)"
      R"( "timeline": [{"event": "closed", "created_at": "2024-01-04T00:00:00Z"}]})";
  const std::vector<std::string> values = {"null",
                                           "true",
                                           "0",
                                           "-1",
                                           "1e308",
                                           "1e999",
                                           "-1e999",
                                           "9223372036854775813",
                                           "18446744073709551616",
                                           "\"\"",
                                           "\"x\\u0000y\"",
                                           "\"\\ud800\"",
                                           "[]",
                                           "{}",
                                           "[[[[[[[[]]]]]]]]",
                                           "\"not a date\"",
                                           "\"../../etc\"",
                                           "\"a/b\"",
                                           "\"2024-13-01T00:00:00Z\"",
                                           "3.5",
                                           "\"\xc0\x80\"",
                                           "\"\xff\"",
                                           "[1,2]",
                                           "[{\"name\": 1}]",
                                           "\"=cmd|' /C calc'!A0\""};
  const std::vector<std::string> fields = {"number", "repo",       "title",     "body",
                                           "state",  "labels",     "comments",  "timeline",
                                           "user",   "created_at", "closed_at", "id"};
  int inputs = 0, refused = 0, stored = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    switch (round % 8) {
      case 0: {  // random bytes
        std::size_t n = pick(300);
        for (std::size_t i = 0; i < n; ++i) text += static_cast<char>(rng() & 0xff);
        break;
      }
      case 1:  // truncated valid object
        text = valid.substr(0, pick(valid.size()));
        break;
      case 2: {  // one field replaced by a wrong or hostile value
        std::string v = values[pick(values.size())];
        text = "{\"repo\": \"fz/z\", \"number\": 7, \"" + fields[pick(fields.size())] + "\": " + v +
               "}";
        break;
      }
      case 3:  // deep nesting in several shapes
        text = std::string(1 + pick(200000), "[{"[pick(2)]);
        if (pick(2)) text = "{\"repo\": \"fz/z\", \"number\": 7, \"x\": " + text + "}";
        break;
      case 4: {  // a valid object with random bytes flipped
        text = valid;
        for (int k = 0; k < 1 + static_cast<int>(pick(4)); ++k)
          text[pick(text.size())] = static_cast<char>(rng() & 0xff);
        break;
      }
      case 5:  // BOMs, NULs and blank lines around objects
        text = std::string(pick(2) ? "\xEF\xBB\xBF" : "") + (pick(2) ? "\n \n" : "") +
               (pick(2) ? valid : std::string("{\"number\": 1, \"repo\": \"fz/z\"}\0", 31)) +
               (pick(2) ? std::string("\0", 1) : "");
        break;
      case 6:  // arrays with a bad element somewhere
        text = "[" + valid + ",\n" + values[pick(values.size())] + "\n," + valid + "]";
        break;
      default: {  // overlong and invalid UTF-8 in a string
        const char* seqs[] = {"\xc0\xaf",     "\xe0\x80\xaf",         "\xf0\x80\x80\xaf",
                              "\xed\xbf\xbf", "\xf8\x88\x80\x80\x80", "\x80",
                              "\xc3"};
        text = std::string("{\"repo\": \"fz/z\", \"number\": 7, \"title\": \"a") + seqs[pick(7)] +
               "b\"}";
        break;
      }
    }
    ++inputs;
    std::string before = import_validation::dump(*f.db);
    std::string msg;
    try {
      msg = f.import(text, round % 2 ? ".json" : ".jsonl");
    } catch (const std::exception& e) {
      FAIL("input " << round << " threw a non-user error: " << e.what());
    }
    if (msg.empty()) {
      ++stored;
      continue;
    }
    ++refused;
    CAPTURE(round);
    CAPTURE(msg);
    // "LINE: what": a line number, then one printable line.
    std::size_t colon = msg.find(':');
    REQUIRE(colon != std::string::npos);
    CHECK(colon > 0);
    CHECK(msg.substr(0, colon).find_first_not_of("0123456789") == std::string::npos);
    CHECK(msg.find('\n') == std::string::npos);
    CHECK(import_validation::dump(*f.db) == before);
  }
  MESSAGE("import fuzz: " << inputs << " inputs, " << refused << " refused, " << stored
                          << " stored, none crashed");
  CHECK(inputs == 3000);
  CHECK(refused > 2000);
}
