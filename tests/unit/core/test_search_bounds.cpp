// Search bounds (issue 15): query length cap, linear snippets, repeated words.
#include <doctest/doctest.h>

#include <chrono>

#include "core/error.h"
#include "core/importer.h"
#include "core/issue_queries.h"
#include "core/migrations.h"
#include "test_helpers.h"

using namespace convfail;

namespace search_bounds {
std::string marked(const std::string& word) {
  return kSnippetOpen + word + kSnippetClose;
}
}  // namespace search_bounds

TEST_CASE("search: make_snippet picks the densest window and keeps phrase markers") {
  using search_bounds::marked;
  std::string text = "alpha beta gamma delta " + marked("hit") + " epsilon zeta " + marked("hit") +
                     " eta theta iota kappa lambda mu";
  CHECK(make_snippet(text, 4, "[", "]") == "...[hit] epsilon zeta [hit]...");
  CHECK(make_snippet(text, 3, "[", "]") == "...delta [hit] epsilon...");
  CHECK(make_snippet(text, 100, "<", ">") ==
        "alpha beta gamma delta <hit> epsilon zeta <hit> eta theta iota kappa lambda mu");
  // A phrase match spans tokens: cut in its middle, both ends stay balanced.
  std::string phrase = "one two " + kSnippetOpen + "INTERNAL ASSERT" + kSnippetClose + " three";
  CHECK(make_snippet(phrase, 3, "[", "]") == "...[INTERNAL ASSERT] three");
  CHECK(make_snippet(phrase, 2, "[", "]").find("[INTERNAL ASSERT]") != std::string::npos);
  CHECK(make_snippet("", 16, "[", "]") == "");
  CHECK(make_snippet("!!! ???", 16, "[", "]") == "");
}

TEST_CASE("search: snippet cost is linear in the text") {
  // 200k matches in one text: a quadratic step would take minutes.
  std::string text;
  for (int i = 0; i < 200000; ++i) text += (i % 3 ? "word " : search_bounds::marked("hit") + " ");
  auto t0 = std::chrono::steady_clock::now();
  std::string s = make_snippet(text, 16, "[", "]");
  double small = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  text += text;
  t0 = std::chrono::steady_clock::now();
  make_snippet(text, 16, "[", "]");
  double big = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(s.find("[hit]") != std::string::npos);
  CHECK(big < 2.0);
  CHECK(big < 6 * small + 0.05);  // twice the text: about twice the time, not four times
}

TEST_CASE("search: long queries are refused, long bodies and repeated words stay fast") {
  test::TempDir dir;
  auto db = open_database(dir.file("s.db"));
  // 30 issues with 60 KB bodies full of the query's words (FTS5's snippet() took 0.3 s per
  // issue on such a body for one word, and grew with the square of the matches).
  std::string jsonl;
  std::string body;
  for (int k = 0; k < 3300; ++k) body += "onnx export w" + std::to_string(k % 120) + " ";
  for (int i = 1; i <= 30; ++i)
    jsonl += "{\"repo\": \"a/b\", \"number\": " + std::to_string(i) +
             ", \"title\": \"onnx issue\", \"body\": \"" + body + "\"}\n";
  import_files(*db, {dir.write("s.jsonl", jsonl)});

  CHECK_THROWS_WITH_AS(search_issues(*db, std::string(1001, 'x')),
                       "the search query is 1001 characters long; the limit is 1000", UsageError);
  CHECK_THROWS_AS(search_issues(*db, std::string(8192, 'x')), UsageError);
  std::string accents;  // 1,000 characters of 2 bytes each: within the limit
  for (int i = 0; i < 1000; ++i) accents += "\xc3\xa9";
  CHECK(search_issues(*db, accents).empty());

  std::string repeated;  // 995 characters of one word: one phrase after de-duplication
  while (repeated.size() + 5 <= 1000) repeated += "onnx ";
  std::string distinct;  // many different words, all in every body
  for (int k = 0; distinct.size() + 6 <= 1000; ++k) distinct += "w" + std::to_string(k % 120) + " ";
  for (const std::string& q : {repeated, distinct}) {
    auto t0 = std::chrono::steady_clock::now();
    auto hits = search_issues(*db, q);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CAPTURE(q.size());
    CHECK(hits.size() == 20);
    REQUIRE(!hits[0].snippets.empty());
    CHECK(hits[0].snippets[0].text.find('[') != std::string::npos);
    CHECK(s < 2.0);
  }
  // Repeated words change nothing but cost.
  CHECK(search_issues(*db, "ONNX onnx Onnx export").size() ==
        search_issues(*db, "onnx export").size());
}
