#include <doctest/doctest.h>

#include "core/error.h"
#include "labeling_fixture.h"
#include "labelsets/source_labels.h"

using namespace convfail;
using namespace convfail::labeling;
using namespace convfail::labelsets;
using convfail::test::LabelingFixture;

namespace {

void manual(LabelingFixture& f, int issue, const char* who, const char* dim, const char* value,
            const char* kind = "label") {
  Stmt st(*f.db,
          "INSERT INTO manual_labels(issue_id, annotator, dimension, value, kind) "
          "VALUES (?, ?, ?, ?, ?)");
  st.bind(1, f.issues[issue]).bind(2, who).bind(3, dim).bind(4, value).bind(5, kind);
  st.run();
}

void predicted(LabelingFixture& f, int issue, const char* dim, const char* label, double confidence,
               const char* subtype = nullptr) {
  Stmt st(*f.db,
          "INSERT INTO classifier_labels(run_id, issue_id, dimension, label, subtype, confidence) "
          "VALUES (1, ?, ?, ?, ?, ?)");
  st.bind(1, f.issues[issue]).bind(2, dim).bind(3, label);
  if (subtype)
    st.bind(4, subtype);
  else
    st.bind_null(4);
  st.bind(5, confidence);
  st.run();
}

// The hybrid labels as "number:dimension=value(origin)" lines.
std::vector<std::string> cells(const std::vector<IssueLabels>& labels) {
  std::vector<std::string> out;
  for (const auto& l : labels)
    for (const auto& [dim, v] : l.values)
      out.push_back(std::to_string(l.number) + ":" + dim + "=" + v + "(" + l.origin.at(dim) + ")");
  return out;
}

}  // namespace

TEST_CASE("hybrid source: adjudication, then the annotator, then confident classifier labels") {
  LabelingFixture f(4);
  f.db->exec("INSERT INTO classifier_runs(id, rules_hash) VALUES (1, 'h')");
  predicted(f, 0, "symptom", "crash", 0.9);
  predicted(f, 1, "symptom", "hang", 0.5);  // below the raw default 0.6
  predicted(f, 2, "symptom", "crash", 0.95);
  predicted(f, 2, "cause", "type_problem", 0.9, "node");
  predicted(f, 3, "symptom", "wrong_model", 0.7);
  // Issue 1 (#1): A's label, then a later adjudication: the adjudication wins.
  manual(f, 0, "A", "symptom", "wrong_model");
  manual(f, 0, "J", "symptom", "build_failure", "adjudication");
  // Issue 4 (#4): an adjudication, then a later label of A: the adjudication still wins.
  manual(f, 3, "J", "symptom", "crash", "adjudication");
  manual(f, 3, "A", "symptom", "hang");
  // B's labels do not count for hybrid:A.
  manual(f, 2, "B", "symptom", "hang");

  auto a = load_label_set(*f.db, "hybrid:A");
  CHECK(cells(a) ==
        std::vector<std::string>{"1:symptom=build_failure(manual)",
                                 "3:cause=type_problem(automatic)", "3:subtype=node(automatic)",
                                 "3:symptom=crash(automatic)", "4:symptom=crash(manual)"});
  OriginCounts n = count_origins(a);
  CHECK(n.manual == 2);
  CHECK(n.automatic == 2);  // the subtype rides with the cause

  // A lower --min-confidence lets the 0.5 label in.
  auto low = load_label_set(*f.db, "hybrid:A", 0.4);
  CHECK(cells(low).size() == 6);
  CHECK(cells(low)[1] == "2:symptom=hang(automatic)");

  // Without an annotator: the consensus (adjudications here; B alone is no consensus).
  auto consensus = load_label_set(*f.db, "hybrid");
  CHECK(cells(consensus) ==
        std::vector<std::string>{"1:symptom=build_failure(manual)",
                                 "3:cause=type_problem(automatic)", "3:subtype=node(automatic)",
                                 "3:symptom=crash(automatic)", "4:symptom=crash(manual)"});

  // A stored calibration: calibrated probabilities against the stored threshold (symptom), raw
  // confidence against the default for dimensions without one (cause).
  f.db->exec(
      "INSERT INTO classifier_calibrations(run_id, dimension, method, blocks_json, threshold, "
      "target_accuracy, fitted_on, samples) VALUES (1, 'symptom', 'isotonic', '[]', 0.8, 0.9, "
      "'t', 10)");
  f.db->exec(
      "INSERT INTO classifier_calibrated(run_id, issue_id, dimension, probability) VALUES "
      "(1, " +
      std::to_string(f.issues[1]) + ", 'symptom', 0.85), (1, " + std::to_string(f.issues[2]) +
      ", 'symptom', 0.7)");
  auto calibrated = load_label_set(*f.db, "hybrid:A");
  CHECK(cells(calibrated) ==
        std::vector<std::string>{"1:symptom=build_failure(manual)", "2:symptom=hang(automatic)",
                                 "3:cause=type_problem(automatic)", "3:subtype=node(automatic)",
                                 "4:symptom=crash(manual)"});
  // A calibration that never reached its target gives no automatic labels of that dimension.
  f.db->exec("UPDATE classifier_calibrations SET threshold = NULL");
  CHECK(cells(load_label_set(*f.db, "hybrid:A")).size() == 4);

  CHECK_THROWS_AS(load_label_set(*f.db, "hybrid:"), UsageError);
  CHECK_THROWS_WITH_AS(load_label_set(*f.db, "hybrid:nobody"),
                       doctest::Contains("\"nobody\" has no manual labels"), UserError);
}
