#include <doctest/doctest.h>

#include "core/error.h"
#include "labeling/annotation_queue.h"
#include "labeling/manual_labels.h"
#include "labeling_fixture.h"
#include "views/queues.h"

using namespace convfail;
using namespace convfail::labeling;
using convfail::test::LabelingFixture;

namespace {
std::vector<std::int64_t> ids(const std::vector<labeling::QueueItem>& q) {
  std::vector<std::int64_t> out;
  for (const auto& i : q) out.push_back(i.issue_id);
  return out;
}
}  // namespace

TEST_CASE("annotate queues: unlabeled, low-confidence, disagreement, repo filter, size") {
  LabelingFixture f(5);
  auto& I = f.issues;
  std::int64_t other = 0;
  IssueStore(*f.db).upsert_issue("zeta/other", Json{{"number", 1}, {"title", "x"}}, &other);
  labeling::record_labels(*f.db, f.tax, I[0], "me", {"crash", {}, {}, {}, {}}, "cli");

  labeling::QueueOptions q;
  CHECK(ids(labeling::build_annotate_queue(*f.db, "me", q)) ==
        std::vector<std::int64_t>{I[1], I[2], I[3], I[4], other});
  q.repos = {"zeta/other"};
  CHECK(ids(labeling::build_annotate_queue(*f.db, "me", q)) == std::vector<std::int64_t>{other});
  q.repos = {"zeta/other", "ACME/conv"};  // several repositories, case-insensitive
  CHECK(ids(labeling::build_annotate_queue(*f.db, "me", q)) ==
        std::vector<std::int64_t>{I[1], I[2], I[3], I[4], other});
  q.repos.clear();
  q.size = 2;
  CHECK(ids(labeling::build_annotate_queue(*f.db, "me", q)) ==
        std::vector<std::int64_t>{I[1], I[2]});
  q.size.reset();

  // These two queues need the classifier's labels, which views::annotate_queue hands over.
  q.queue = "low-confidence";
  CHECK_THROWS_AS(views::annotate_queue(*f.db, f.tax, "", "me", q),
                  UserError);  // no classifier run yet
  f.db->exec("INSERT INTO classifier_runs(id, rules_hash) VALUES (1, 'h')");
  auto conf = [&](std::int64_t issue, const char* dim, const char* label, double c) {
    Stmt st(*f.db,
            "INSERT INTO classifier_labels(run_id, issue_id, dimension, label, confidence) "
            "VALUES (1, ?, ?, ?, ?)");
    st.bind(1, issue).bind(2, dim).bind(3, label).bind(4, c);
    st.run();
  };
  conf(I[0], "symptom", "hang", 0.1);  // labeled by me already: left out
  conf(I[1], "symptom", "crash", 0.4);
  conf(I[1], "cause", "typo", 0.9);
  conf(I[2], "symptom", "crash", 0.2);
  conf(I[3], "symptom", "crash", 0.8);  // confident: left out
  CHECK(ids(views::annotate_queue(*f.db, f.tax, "", "me", q)) ==
        std::vector<std::int64_t>{I[2], I[1]});

  // disagreement: another annotator vs the classifier on I[2]; agreement on I[3].
  labeling::record_labels(*f.db, f.tax, I[2], "other", {"hang", {}, {}, {}, {}}, "cli");
  labeling::record_labels(*f.db, f.tax, I[3], "other", {"crash", {}, {}, {}, {}}, "cli");
  q.queue = "disagreement";
  CHECK(ids(views::annotate_queue(*f.db, f.tax, "", "me", q)) == std::vector<std::int64_t>{I[2]});
  q.queue = "nonsense";
  CHECK_THROWS_AS(labeling::build_annotate_queue(*f.db, "me", q), UsageError);
}
