#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "cli/annotation_session.h"
#include "labeling/label_sets.h"
#include "labeling/manual_labels.h"
#include "labeling_fixture.h"
#include "labelsets/source_labels.h"

using namespace convfail;
using namespace convfail::cli;
using namespace convfail::labeling;
using convfail::test::LabelingFixture;

namespace {

// A classifier run with a suggestion and evidence for the first issue only.
void add_classifier_run(LabelingFixture& f) {
  f.db->exec("INSERT INTO classifier_runs(id, rules_hash) VALUES (1, 'h')");
  std::int64_t id = f.issues[0];
  std::string i = std::to_string(id);
  f.db->exec(
      "INSERT INTO classifier_labels(run_id, issue_id, dimension, label, subtype, "
      "confidence) VALUES (1," +
      i + ",'symptom','crash',NULL,0.9),(1," + i + ",'cause','type_problem','node',0.7),(1," + i +
      ",'stage','node_conversion',NULL,0.4)");
  // "RuntimeError" sits at bytes 18..30 of the synthetic body.
  f.db->exec(
      "INSERT INTO classifier_evidence(run_id, issue_id, dimension, label, rule_id, field, "
      "span_start, span_end, matched_text, weight) VALUES (1," +
      i + ",'symptom','crash','crash.error','body',18,30,'RuntimeError',1.0)");
}

struct Run {
  cli::SessionSummary summary;
  std::string output;
  bool resumed;
  std::int64_t session_id;
};

Run annotate(LabelingFixture& f, const std::string& keys, const std::string& queue = "unlabeled") {
  labeling::QueueOptions q;
  q.queue = queue;
  cli::SessionConfig config;
  cli::OpenedSession opened =
      cli::open_session(*f.db, f.tax, "ann", "annotate", queue, "p", config,
                        [&] { return labeling::build_annotate_queue(*f.db, "ann", q); });
  cli::AnnotationSession session(*f.db, f.tax, opened.session, config);
  std::istringstream in(keys);
  std::ostringstream out;
  cli::LineKeyReader reader(in);
  cli::SessionSummary s = session.run(reader, out);
  return {s, out.str(), opened.resumed, opened.session.id};
}

std::map<std::string, std::string> current(LabelingFixture& f, std::size_t issue) {
  for (const auto& l : labeling::load_annotator_labels(*f.db, "ann"))
    if (l.issue_id == f.issues[issue]) return l.values;
  return {};
}

}  // namespace

TEST_CASE("annotate (piped keys): label three issues, undo one answer, quit, resume") {
  LabelingFixture f;
  add_classifier_run(f);
  // Issue 1: accept every suggestion (Enter / a); issue 2 and 3: pick by number; then undo the
  // last answer (stage of issue 3) and quit.
  Run first = annotate(f,
                       "\na\n\n\n"
                       "2\n4\n6\n"
                       "1\n10\n2\n"
                       "u\nq\n");
  CHECK_FALSE(first.resumed);
  CHECK(first.summary.answered == 10);
  CHECK(first.summary.undone == 1);
  CHECK(first.summary.done_items == 2);
  CHECK(first.output.find("suggestion: crash (0.90)") != std::string::npos);
  CHECK(first.output.find("crash.error in body: RuntimeError") != std::string::npos);
  CHECK(first.output.find("[[RuntimeError]]") != std::string::npos);  // highlighted, no colour
  CHECK(first.output.find("\x1b[") == std::string::npos);
  CHECK(current(f, 0) == std::map<std::string, std::string>{{"symptom", "crash"},
                                                            {"cause", "type_problem"},
                                                            {"subtype", "node"},
                                                            {"stage", "node_conversion"}});
  CHECK(current(f, 1) == std::map<std::string, std::string>{{"symptom", "wrong_model"},
                                                            {"cause", "shape_problem"},
                                                            {"stage", "not_distinguishable"}});
  CHECK(current(f, 2) ==
        std::map<std::string, std::string>{{"symptom", "crash"}, {"cause", "algorithmic_error"}});
  auto rows = f.rows();
  REQUIRE(rows.size() == 11);
  CHECK(rows[10].find("|stage|-|undo||annotate:") != std::string::npos);

  // Resume: the same session, at the undone question (stage of issue 3).
  Run second = annotate(f, "3\nq\n");
  CHECK(second.resumed);
  CHECK(second.session_id == first.session_id);
  CHECK(second.output.find("[3/5]") != std::string::npos);
  CHECK(second.output.find("[1/5]") == std::string::npos);
  CHECK(current(f, 2).at("stage") == "optimization");
  CHECK(f.rows().size() == 12);
  CHECK(second.summary.done_items == 3);

  // A session killed mid-issue (input ends after one answer) resumes at the next dimension.
  Run third = annotate(f, "1\n");
  CHECK(third.summary.answered == 1);
  Run fourth = annotate(f, "s\nq\n");
  CHECK(fourth.output.find("cause> s") != std::string::npos);
  CHECK(fourth.summary.skipped == 1);
  CHECK(fourth.summary.done_items == 4);
  // Every earlier row is still there, unchanged.
  auto later = f.rows();
  for (std::size_t i = 0; i < rows.size(); ++i) CHECK(later[i] == rows[i]);
}

TEST_CASE("annotate: undo restores the label held before the session") {
  LabelingFixture f(1);
  labeling::record_labels(*f.db, f.tax, f.issues[0], "ann", {"hang", {}, {}, {}, {}}, "cli");
  labeling::QueueOptions q;
  q.queue = "sample";
  q.size = 1;
  // The sample skips issues already labeled, so walk a stored session over the one issue.
  labeling::StoredSession s =
      labeling::create_session(*f.db, "ann", "annotate", "sample", "x", {{f.issues[0], {}}});
  cli::AnnotationSession session(*f.db, f.tax, s, {});
  std::istringstream in("1\nu\nq\n");
  std::ostringstream out;
  cli::LineKeyReader keys(in);
  session.run(keys, out);
  CHECK(current(f, 0).at("symptom") == "hang");
  CHECK(labeling::build_annotate_queue(*f.db, "ann", q).empty());
}

TEST_CASE("raw keys: digits wait for a second digit only when it can form a label number") {
  std::istringstream in(
      "12"
      "1\r"
      "1a"
      "3"
      "n"
      "ab\x7f"
      "c\r"
      "\x1b[A"
      "q");
  std::ostringstream echo;
  cli::RawKeyReader keys(in, echo);
  const std::vector<std::string> c14(14, "x"), c6(6, "x");
  CHECK(keys.next(c14) == "12");
  CHECK(keys.next(c14) == "1");
  CHECK(keys.next(c14) == "1");
  CHECK(keys.next(c14) == "a");
  CHECK(keys.next(c6) == "3");
  CHECK(keys.next(c6) == "n");
  CHECK(keys.line() == "ac");
  CHECK(keys.next(c6) == "q");  // the arrow key's escape sequence is ignored
  CHECK_FALSE(keys.next(c6).has_value());
}

TEST_CASE("raw keys: a pending first digit is shown with the labels it could complete") {
  std::vector<std::string> causes;
  for (int i = 1; i <= 14; ++i) causes.push_back("c" + std::to_string(i));
  std::istringstream in(
      "1"
      "3"
      "2"
      "1\r");
  std::ostringstream echo;
  cli::RawKeyReader keys(in, echo);
  CHECK(keys.next(causes) == "13");
  CHECK(echo.str().find("1_  1 c1 \xc2\xb7 10 c10 \xc2\xb7 11 c11") != std::string::npos);
  CHECK(echo.str().find("14 c14  (next digit, Enter for 1)") != std::string::npos);
  CHECK(echo.str().find("\x1b[K") != std::string::npos);  // cleared once the number is known
  echo.str("");
  CHECK(keys.next(causes) == "2");  // 20 cannot be a label: no wait, nothing pending shown
  CHECK(echo.str().empty());
  CHECK(keys.next(causes) == "1");
  CHECK(cli::pending_hint("1", {"a", "b"}) == "1_  1 a  (next digit, Enter for 1)");
}

TEST_CASE("raw keys: a 0 is answered at once, never left waiting for a next digit") {
  std::istringstream in("05");
  std::ostringstream echo;
  cli::RawKeyReader keys(in, echo);
  const std::vector<std::string> c6(6, "x");
  CHECK(keys.next(c6) == "0");  // no label 0: the session says so, no "0_ (next digit)"
  CHECK(echo.str().empty());
  CHECK(keys.next(c6) == "5");
}

TEST_CASE("sample queue: reproducible, stratified by repository") {
  std::map<std::string, std::vector<std::int64_t>> groups;
  for (int i = 0; i < 60; ++i) groups["a/x"].push_back(i);
  for (int i = 100; i < 140; ++i) groups["b/y"].push_back(i);
  auto s1 = stratified_sample(groups, 10, 7), s2 = stratified_sample(groups, 10, 7);
  CHECK(s1 == s2);
  CHECK(s1 != stratified_sample(groups, 10, 8));
  REQUIRE(s1.size() == 10);
  CHECK(std::count_if(s1.begin(), s1.end(), [](auto id) { return id < 100; }) == 6);
  std::set<std::int64_t> unique(s1.begin(), s1.end());
  CHECK(unique.size() == 10);
  CHECK(stratified_sample(groups, 500, 1).size() == 100);
}

TEST_CASE("adjudicate: walks only disagreements, consensus = adjudication, else agreed value") {
  LabelingFixture f(3);
  auto label = [&](int issue, const char* who, labeling::LabelChoice c) {
    labeling::record_labels(*f.db, f.tax, f.issues[issue], who, c, "cli");
  };
  label(0, "A", {"crash", "incompatibility", "external", {}, {}});
  label(0, "B", {"crash", "type_problem", "node", {}, {}});
  label(1, "A", {"hang", {}, {}, {}, {}});
  label(1, "B", {"hang", {}, {}, {}, {}});
  label(2, "A", {"crash", {}, {}, {}, {}});  // only A: no consensus
  auto queue = labeling::build_adjudication_queue(*f.db, {"A", "B"}, "J");
  REQUIRE(queue.size() == 1);
  CHECK(queue[0].dimensions == std::vector<std::string>{"cause", "subtype"});

  cli::SessionConfig config;
  config.compare = {"A", "B"};
  cli::OpenedSession opened = cli::open_session(*f.db, f.tax, "J", "adjudicate", "disagreements",
                                                "A,B", config, [&] { return queue; });
  cli::AnnotationSession session(*f.db, f.tax, opened.session, config);
  std::istringstream in("3\n1\n");  // type_problem (B's), then subtype node
  std::ostringstream out;
  cli::LineKeyReader keys(in);
  cli::SessionSummary s = session.run(keys, out);
  CHECK(s.finished);
  CHECK(out.str().find("A: incompatibility [2]") != std::string::npos);
  CHECK(out.str().find("B: type_problem [3]") != std::string::npos);
  CHECK(f.db->scalar("SELECT count(*) FROM manual_labels WHERE kind='adjudication'") == 2);

  auto consensus = labelsets::load_label_set(*f.db, "consensus");
  REQUIRE(consensus.size() == 2);
  CHECK(consensus[0].values == std::map<std::string, std::string>{{"symptom", "crash"},
                                                                  {"cause", "type_problem"},
                                                                  {"subtype", "node"}});
  CHECK(consensus[1].values == std::map<std::string, std::string>{{"symptom", "hang"}});
  auto sources = labelsets::label_sources(*f.db);
  CHECK(std::find(sources.begin(), sources.end(), "consensus") != sources.end());
  CHECK(labeling::build_adjudication_queue(*f.db, {"A", "B"}, "J").empty());
}

TEST_CASE("annotate: a re-ranked queue is followed, stored, and resumed in its new order") {
  LabelingFixture f(5);
  std::vector<labeling::QueueItem> items;
  for (std::int64_t id : f.issues) items.push_back({id, {}});
  labeling::StoredSession s =
      labeling::create_session(*f.db, "ann", "annotate", "uncertain", "x", items);
  std::vector<std::size_t> calls;
  cli::SessionConfig config;
  config.rerank = [&](std::size_t from, const std::vector<labeling::QueueItem>& queue)
      -> std::optional<std::vector<std::int64_t>> {
    calls.push_back(from);
    if (from != 1) return std::nullopt;
    std::vector<std::int64_t> reversed;
    for (std::size_t i = queue.size(); i-- > from;) reversed.push_back(queue[i].issue_id);
    return reversed;
  };
  {
    cli::AnnotationSession session(*f.db, f.tax, s, config);
    // Issue 1: symptom answered, then the issue skipped; then one answer on the next issue.
    std::istringstream in("1\ns\n1\nq\n");
    std::ostringstream out;
    cli::LineKeyReader keys(in);
    session.run(keys, out);
    CHECK(out.str().find("(queue re-ranked: 4 issue(s) left)") != std::string::npos);
    CHECK(out.str().find("[2/5] acme/conv#5") != std::string::npos);
  }
  // Asked only before issues not yet started: positions 0 and 1, not mid-issue.
  CHECK(calls == std::vector<std::size_t>{0, 1});
  labeling::StoredSession stored = labeling::load_session(*f.db, s.id);
  std::vector<std::int64_t> order;
  for (const auto& item : stored.items) order.push_back(item.issue_id);
  CHECK(order ==
        std::vector<std::int64_t>{f.issues[0], f.issues[4], f.issues[3], f.issues[2], f.issues[1]});
  CHECK(current(f, 4).count("symptom") == 1);  // the answer went to issue 5
  CHECK(current(f, 1).empty());
  // Resumed without a hook: back on issue 5 (its second question), in the stored order.
  cli::AnnotationSession resumed(*f.db, f.tax, stored, {});
  std::istringstream in("s\nq\n");
  std::ostringstream out;
  cli::LineKeyReader keys(in);
  resumed.run(keys, out);
  CHECK(out.str().find("acme/conv#5") != std::string::npos);
  CHECK(out.str().find("cause>") != std::string::npos);
  // A hook answer that is not a permutation of the tail is ignored.
  cli::SessionConfig bad;
  bad.rerank = [](std::size_t, const std::vector<labeling::QueueItem>&) {
    return std::optional<std::vector<std::int64_t>>(std::vector<std::int64_t>{42});
  };
  cli::AnnotationSession ignoring(*f.db, f.tax, labeling::load_session(*f.db, s.id), bad);
  std::istringstream in2("q\n");
  std::ostringstream out2;
  cli::LineKeyReader keys2(in2);
  ignoring.run(keys2, out2);
  CHECK(out2.str().find("re-ranked") == std::string::npos);
  CHECK(labeling::load_session(*f.db, s.id).items.size() == 5);
}
