#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/importer.h"
#include "core/issue_queries.h"
#include "core/migrations.h"
#include "issue_fixture.h"
#include "test_helpers.h"

using namespace convfail;
using test::fixture_db;

namespace {

std::vector<std::string> refs(const std::vector<IssueSummary>& issues) {
  std::vector<std::string> out;
  for (const auto& s : issues) out.push_back(s.repo + "#" + std::to_string(s.number));
  return out;
}

}  // namespace

TEST_CASE("issue queries: list filters by repo, state, labels, fix link, pull requests, limit") {
  test::TempDir dir;
  auto db = fixture_db(dir);
  IssueFilter all;
  CHECK(list_issues(*db, all).size() == 5);  // the pull request is hidden
  all.include_pull_requests = true;
  CHECK(list_issues(*db, all).size() == 6);

  IssueFilter f;
  f.repos = {"PyTorch/PyTorch"};  // case-insensitive
  CHECK(refs(list_issues(*db, f)) ==
        std::vector<std::string>{"pytorch/pytorch#12", "pytorch/pytorch#11", "pytorch/pytorch#10"});
  f.state = "closed";
  CHECK(refs(list_issues(*db, f)) ==
        std::vector<std::string>{"pytorch/pytorch#12", "pytorch/pytorch#10"});
  f.labels = {"module: onnx", "TRIAGED"};  // every label must be present
  CHECK(refs(list_issues(*db, f)) == std::vector<std::string>{"pytorch/pytorch#10"});

  IssueFilter fixed;
  fixed.fixed_only = true;
  auto fx = list_issues(*db, fixed);
  REQUIRE(fx.size() == 1);
  CHECK(fx[0].number == 10);
  CHECK(fx[0].has_fix_link);
  CHECK(fx[0].labels == std::vector<std::string>{"module: onnx", "triaged"});
  CHECK(fx[0].stored_comments == 2);

  IssueFilter lim;
  lim.limit = 2;
  CHECK(list_issues(*db, lim).size() == 2);
  IssueFilter none;
  none.labels = {"no such label"};
  CHECK(list_issues(*db, none).empty());
}

TEST_CASE("issue queries: issue references parse, bad ones are usage errors") {
  IssueRef r = parse_issue_ref("pytorch/pytorch#49403");
  CHECK(r.repo == "pytorch/pytorch");
  CHECK(r.number == 49403);
  r = parse_issue_ref("https://github.com/onnx/tensorflow-onnx/issues/7");
  CHECK(r.repo == "onnx/tensorflow-onnx");
  CHECK(r.number == 7);
  CHECK_THROWS_AS(parse_issue_ref("pytorch#1"), UsageError);
  CHECK_THROWS_AS(parse_issue_ref("a/b#"), UsageError);
  CHECK_THROWS_AS(parse_issue_ref("a/b#12x"), UsageError);
  CHECK_THROWS_AS(parse_issue_ref("a/b#99999999999999999999"), UsageError);
}

TEST_CASE("issue queries: show returns the thread with associations and timeline") {
  test::TempDir dir;
  auto db = fixture_db(dir);
  auto d = get_issue(*db, {"pytorch/pytorch", 10});
  REQUIRE(d);
  CHECK(d->summary.title == "GridSample export fails");
  REQUIRE(d->comments.size() == 2);
  CHECK(d->comments[0].author == std::optional<std::string>("m"));
  CHECK(d->comments[0].author_association == std::optional<std::string>("MEMBER"));
  CHECK(!d->comments[1].author_association);
  REQUIRE(d->timeline.size() == 1);
  CHECK(d->timeline[0].commit_id == std::optional<std::string>("abc123"));
  Json j = to_json(*d);
  CHECK(j["comments"].size() == 2);
  CHECK(j["labels"] == Json::array({"module: onnx", "triaged"}));
  CHECK(!get_issue(*db, {"pytorch/pytorch", 999}));
  CHECK(!get_issue(*db, {"other/repo", 10}));
}

TEST_CASE("issue queries: a page of a filter by ids, counted in SQL, search pages the same way") {
  test::TempDir dir;
  auto db = fixture_db(dir);
  IssueFilter f;
  std::vector<IssueSummary> every = list_issues(*db, f);
  REQUIRE(every.size() == 5);
  f.ids = std::vector<std::int64_t>{every[0].id, every[2].id, every[4].id, 999999};
  CHECK(count_issues(*db, f) == 3);
  f.limit = 2;
  f.offset = 1;
  CHECK(refs(list_issues(*db, f)) == refs({every[2], every[4]}));
  CHECK(count_issues(*db, f) == 3);  // limit and offset aside
  f.ids = std::vector<std::int64_t>{};
  CHECK(count_issues(*db, f) == 0);
  CHECK(list_issues(*db, f).empty());

  // gridsample: #10, then #12 and #11 (see the ranking test); the filter and page apply to hits.
  SearchOptions o;
  std::int64_t total = 0;
  auto all_hits = search_issues(*db, "gridsample", o, &total);
  REQUIRE(all_hits.size() == 3);
  CHECK(total == 3);
  o.limit = 1;
  o.offset = 1;
  auto page = search_issues(*db, "gridsample", o, &total);
  REQUIRE(page.size() == 1);
  CHECK(page[0].issue.id == all_hits[1].issue.id);
  CHECK(total == 3);
  IssueFilter closed;
  closed.state = "closed";
  o.where = closed;
  o.offset = 0;
  o.limit = 10;
  auto closed_hits = search_issues(*db, "gridsample", o, &total);
  CHECK(total == 2);  // #11 is open
  REQUIRE(closed_hits.size() == 2);
  CHECK(closed_hits[0].issue.number == 10);
}

TEST_CASE("issue queries: search ranks, groups per issue and highlights") {
  test::TempDir dir;
  auto db = fixture_db(dir);
  SearchOptions o;
  o.highlight_open = "<<";
  o.highlight_close = ">>";
  auto hits = search_issues(*db, "gridsample", o);
  // #10 matches in title, body and a comment; #12 in two comments; #11 once in a long body.
  // The pull request #7 is hidden.
  std::vector<std::string> got;
  for (const auto& h : hits) got.push_back(h.issue.repo + "#" + std::to_string(h.issue.number));
  REQUIRE(got.size() == 3);
  CHECK(got[0] == "pytorch/pytorch#10");
  CHECK(std::count(got.begin(), got.end(), "pytorch/pytorch#12") == 1);  // one hit per issue
  CHECK(hits[0].score <= hits[1].score);
  CHECK(hits[1].score <= hits[2].score);
  for (const auto& h : hits) {
    REQUIRE(!h.snippets.empty());
    bool marked = false;
    for (const auto& s : h.snippets) {
      if (s.text.find("<<") != std::string::npos && s.text.find(">>") != std::string::npos)
        marked = true;
      CHECK(s.text.find('\n') == std::string::npos);
    }
    CHECK(marked);
  }
  for (const auto& h : hits)
    if (h.issue.number == 12) CHECK(h.matching_comments == 2);

  o.include_pull_requests = true;
  CHECK(search_issues(*db, "gridsample", o).size() == 4);
  o.limit = 1;
  CHECK(search_issues(*db, "gridsample", o).size() == 1);
}

TEST_CASE("issue queries: FTS5 syntax behind fts, phrases, column filters and syntax errors") {
  test::TempDir dir;
  auto db = fixture_db(dir);
  SearchOptions fts;
  fts.fts = true;
  // The phrase matches #5 only; the two words unquoted match #5 and #6.
  auto phrase = search_issues(*db, "\"INTERNAL ASSERT\"", fts);
  REQUIRE(phrase.size() == 1);
  CHECK(phrase[0].issue.number == 5);
  CHECK(phrase[0].snippets[0].text.find("[INTERNAL ASSERT]") != std::string::npos);
  CHECK(search_issues(*db, "internal assert", fts).size() == 2);
  // A column that exists only in issues_fts: comments are skipped, not an error.
  auto title = search_issues(*db, "title:gridsample", fts);
  REQUIRE(title.size() == 1);
  CHECK(title[0].issue.number == 10);
  CHECK_THROWS_AS(search_issues(*db, "x.cpp", fts), UserError);
  CHECK_THROWS_AS(search_issues(*db, "author:f", fts), UserError);  // no such column anywhere
  CHECK_THROWS_AS(search_issues(*db, "\"unterminated", fts), UserError);
  CHECK_THROWS_AS(search_issues(*db, "   ", fts), UsageError);
}

TEST_CASE("issue queries: by default the words are searched as written (code needs no quotes)") {
  test::TempDir dir;
  auto db = fixture_db(dir);
  auto x = search_issues(*db, "x.cpp");
  REQUIRE(x.size() == 1);
  CHECK(x[0].issue.number == 5);
  // What FTS5 syntax would refuse is text here: punctuation, a stray quote, a column-like word,
  // an unbalanced parenthesis, an operator word.
  for (const char* q : {"x.cpp", "\"unterminated", "author:f", "torch.onnx.export", "can't export",
                        "opset_version=11", "Conv2D(", "aten::zero", "OR", "NEAR("})
    CHECK_NOTHROW(search_issues(*db, q));
  CHECK_THROWS_AS(search_issues(*db, "   "), UsageError);
  CHECK_THROWS_AS(search_issues(*db, "( ) ::"), UsageError);  // nothing to search for
  // The phrase of two words matches the same issues as the two words in FTS5 syntax.
  CHECK(search_issues(*db, "internal assert").size() == 2);
  CHECK(fts_literal("a \"b c\" c.d") == "a \"b c\" \"c.d\"");
  CHECK(fts_literal("a\"b \"c") == "\"a\"\"b\" \"\"\"c\"");      // unbalanced quotes are text
  CHECK(search_issues(*db, "\"INTERNAL ASSERT\"").size() == 1);  // a typed phrase stays one
  CHECK(fts_literal("Conv2D( conv2d( CONV2D( x_y OR") == "\"Conv2D(\" x_y \"OR\"");
  CHECK(fts_literal("onnx ONNX Onnx (") == "onnx");
}

TEST_CASE("issue queries: every labeled sample issue is stored and listed") {
  test::TempDir dir;
  auto db = open_database(dir.file("s.db"));
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(test::data_dir() + "/sample")) {
    std::string ext = e.path().extension().string();
    if (ext == ".json" || ext == ".jsonl") files.push_back(e.path().string());
  }
  REQUIRE(files.size() >= 2);
  import_files(*db, files);
  std::ifstream csv(test::data_dir() + "/sample/labels.csv");
  std::string line;
  std::getline(csv, line);  // header
  std::size_t rows = 0;
  while (std::getline(csv, line)) {
    std::istringstream in(line);
    std::string repo, number;
    std::getline(in, repo, ',');
    std::getline(in, number, ',');
    INFO(line);
    CHECK(get_issue(*db, {repo, std::stoll(number)}));
    ++rows;
  }
  CHECK(rows >= 25);
  CHECK(list_issues(*db, {}).size() == rows);
}
