#include <doctest/doctest.h>

#include <string>

#include "core/error.h"
#include "core/issue_ref.h"

using namespace convfail;

namespace {

std::string parsed(const std::string& text) {
  return to_string(parse_issue_ref(text));
}

std::string error_of(const std::string& text) {
  try {
    parse_issue_ref(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("issue_ref: every accepted form names the same issue") {
  for (const char* text : {
           "pytorch/pytorch#81234",
           "  pytorch/pytorch#81234\n",
           "pytorch/pytorch/issues/81234",
           "pytorch/pytorch/pull/81234",
           "https://github.com/pytorch/pytorch/issues/81234",
           "https://github.com/pytorch/pytorch/issues/81234/",
           "http://github.com/pytorch/pytorch/issues/81234",
           "https://www.github.com/pytorch/pytorch/issues/81234",
           "github.com/pytorch/pytorch/issues/81234",
           "https://github.com/pytorch/pytorch/pull/81234",
           "https://github.com/pytorch/pytorch/pull/81234/",
           "https://github.com/pytorch/pytorch/issues/81234?foo=bar",
           "https://github.com/pytorch/pytorch/issues/81234#issuecomment-1",
           "https://github.com/pytorch/pytorch/issues/81234/?q=1#x",
       }) {
    CAPTURE(text);
    IssueRef r = parse_issue_ref(text);
    CHECK(r.repo == "pytorch/pytorch");
    CHECK(r.number == 81234);
  }
}

TEST_CASE("issue_ref: GitHub's name characters are kept as typed") {
  CHECK(parsed("onnx/tensorflow-onnx#7") == "onnx/tensorflow-onnx#7");
  CHECK(parsed("a-b/c.d-e_f#1") == "a-b/c.d-e_f#1");
  // Owners (logins) hold letters, digits and '-' only (core/issue_schema.h).
  CHECK_THROWS_AS(parse_issue_ref("a_b/c#1"), UsageError);
  CHECK(parsed("Owner9/Repo.js/issues/0012") == "Owner9/Repo.js#12");
}

TEST_CASE("issue_ref: the number is in 1..2^53") {
  CHECK(parse_issue_ref("a/b#9007199254740992").number == 9007199254740992LL);
  CHECK_THROWS_AS(parse_issue_ref("a/b#9007199254740993"), UsageError);
  CHECK_THROWS_AS(parse_issue_ref("a/b#99999999999999999999"), UsageError);
  CHECK_THROWS_AS(parse_issue_ref("a/b#0"), UsageError);
  CHECK_THROWS_AS(parse_issue_ref("a/b#000"), UsageError);
  CHECK_THROWS_AS(parse_issue_ref("a/b#-3"), UsageError);
  CHECK_THROWS_AS(parse_issue_ref("a/b#"), UsageError);
  CHECK_THROWS_AS(parse_issue_ref("a/b#12x"), UsageError);
  CHECK_THROWS_AS(parse_issue_ref("a/b#1.5"), UsageError);
  CHECK_THROWS_AS(parse_issue_ref("https://github.com/a/b/issues/"), UsageError);
  CHECK_THROWS_AS(parse_issue_ref("https://github.com/a/b/issues/x1"), UsageError);
}

TEST_CASE("issue_ref: bad owner or repository names are refused") {
  for (const char* text : {
           "pytorch#1",
           "a/b/c#1",
           "a b/c#1",
           "a/b c#1",
           "a$/b#1",
           "a/b!#1",
           "./b#1",
           "a/..#1",
           "https://github.com/a/b",
           "https://github.com/a/b/commits/1",
           "https://gitlab.com/a/b/issues/1",
           "a/b/issues/1/extra",
           "#1",
           "",
           "a/b",
           "ftp://github.com/a/b/issues/1",
       }) {
    CAPTURE(text);
    CHECK_THROWS_AS(parse_issue_ref(text), UsageError);
  }
  // Longer than GitHub allows: logins up to 39 characters, repository names up to 100.
  CHECK_NOTHROW(parse_issue_ref(std::string(39, 'o') + "/r#1"));
  CHECK_THROWS_AS(parse_issue_ref(std::string(40, 'o') + "/r#1"), UsageError);
  CHECK_THROWS_AS(parse_issue_ref("o/" + std::string(101, 'r') + "#1"), UsageError);
}

TEST_CASE("issue_ref: one message shape that quotes the input and shows both forms") {
  for (const char* text : {"pytorch#1", "a$/b#1", "a/b#0", "a/b#x"}) {
    CAPTURE(text);
    std::string m = error_of(text);
    CHECK(m.rfind("bad issue reference '" + std::string(text) + "' (", 0) == 0);
    CHECK(m.find("expected OWNER/REPO#N or https://github.com/OWNER/REPO/issues/N") !=
          std::string::npos);
    CHECK(m.find('\n') == std::string::npos);
  }
}

TEST_CASE("issue_page_url: the stored GitHub address, else built from the reference") {
  IssueRef ref{"pytorch/pytorch", 42};
  CHECK(issue_page_url(ref) == "https://github.com/pytorch/pytorch/issues/42");
  CHECK(issue_page_url(ref, "https://github.com/pytorch/pytorch/pull/42") ==
        "https://github.com/pytorch/pytorch/pull/42");
  // Anything but a GitHub https address (a flattened import's or a hostile one) is not linked.
  CHECK(issue_page_url(ref, "javascript:alert(1)") ==
        "https://github.com/pytorch/pytorch/issues/42");
  CHECK(issue_page_url(ref, "http://github.com/x/y/issues/1") ==
        "https://github.com/pytorch/pytorch/issues/42");
}
