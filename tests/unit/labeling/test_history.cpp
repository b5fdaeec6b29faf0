#include <doctest/doctest.h>

#include <functional>
#include <sstream>

#include "cli/annotation_session.h"
#include "core/error.h"
#include "core/importer.h"
#include "labeling/label_io.h"
#include "labeling/label_sets.h"
#include "labeling/manual_labels.h"
#include "labeling_fixture.h"
#include "labelsets/agreement_report.h"
#include "labelsets/source_labels.h"

using namespace convfail;
using namespace convfail::labeling;
using convfail::test::LabelingFixture;

namespace {
// Checks that every row of `before` is still the same row in `after`.
void check_prefix(const std::vector<std::string>& before, const std::vector<std::string>& after,
                  const char* step) {
  INFO("after: " << step);
  REQUIRE(after.size() >= before.size());
  for (std::size_t i = 0; i < before.size(); ++i) CHECK(after[i] == before[i]);
}
}  // namespace

TEST_CASE("manual label history is append-only through every operation") {
  LabelingFixture f(4);
  std::vector<std::string> rows;
  auto step = [&](const char* name, const std::function<void()>& op) {
    try {
      op();
    } catch (const std::exception&) {
      // Failing operations must leave the history alone too.
    }
    auto now = f.rows();
    check_prefix(rows, now, name);
    rows = now;
  };
  step("label", [&] {
    labeling::record_labels(*f.db, f.tax, f.issues[0], "A", {"crash", "typo", {}, "export", {}},
                            "cli");
  });
  step("label change", [&] {
    labeling::record_labels(*f.db, f.tax, f.issues[0], "A", {"hang", {}, {}, {}, "changed"}, "cli");
  });
  step("label refused", [&] {
    labeling::record_labels(*f.db, f.tax, f.issues[0], "A", {"nonsense", {}, {}, {}, {}}, "cli");
  });
  const std::string csv =
      "repo,number,rater,symptom,cause\nacme/conv,1,A,crash,typo\n"
      "acme/conv,1,B,crash,others\nacme/conv,2,B,hang,typo\n";
  step("import", [&] { labeling::import_label_csv_text(*f.db, f.tax, csv, "a.csv", {}); });
  step("re-import", [&] { labeling::import_label_csv_text(*f.db, f.tax, csv, "a.csv", {}); });
  step("malformed import", [&] {
    labeling::import_label_csv_text(*f.db, f.tax, csv + "acme/conv,3,A,\"x\n", "b.csv", {});
  });
  step("export", [&] {
    std::ostringstream out;
    labeling::export_labels(*f.db, std::nullopt, labeling::LabelFormat::kCsv, out);
  });
  step("annotate with skip and undo", [&] {
    labeling::QueueOptions q;
    cli::OpenedSession o =
        cli::open_session(*f.db, f.tax, "A", "annotate", "unlabeled", "", {},
                          [&] { return labeling::build_annotate_queue(*f.db, "A", q); });
    cli::AnnotationSession s(*f.db, f.tax, o.session, {});
    std::istringstream in("1\n2\nu\nu\ns\n1\n1\n1\nq\n");
    std::ostringstream out;
    cli::LineKeyReader keys(in);
    s.run(keys, out);
  });
  step("adjudicate", [&] {
    cli::SessionConfig c;
    c.compare = {"A", "B"};
    cli::OpenedSession o =
        cli::open_session(*f.db, f.tax, "J", "adjudicate", "disagreements", "A,B", c, [&] {
          return labeling::build_adjudication_queue(*f.db, {"A", "B"}, "J");
        });
    cli::AnnotationSession s(*f.db, f.tax, o.session, c);
    std::istringstream in("1\n1\n1\n1\n");
    std::ostringstream out;
    cli::LineKeyReader keys(in);
    s.run(keys, out);
  });
  step("agreement and consensus", [&] {
    labelsets::compute_agreement(*f.db, {"A", "B"});
    labelsets::load_label_set(*f.db, "consensus");
  });
  step("issue re-import", [&] {
    IssueStore store(*f.db);
    std::int64_t id = 0;
    store.upsert_issue("acme/conv",
                       Json{{"number", 1}, {"title", "retitled"}, {"updated_at", "2030"}}, &id);
  });
  step("direct UPDATE and DELETE are refused", [&] {
    CHECK_THROWS(f.db->exec("UPDATE manual_labels SET value = 'x'"));
    CHECK_THROWS(f.db->exec("DELETE FROM manual_labels"));
  });
  CHECK(rows.size() >= 12);
  CHECK(f.db->scalar("SELECT count(*) FROM manual_labels WHERE kind = 'undo'") == 2);
  CHECK(f.db->scalar("SELECT count(*) FROM manual_labels WHERE kind = 'skip'") == 1);
  CHECK(f.db->scalar("SELECT count(*) FROM manual_labels WHERE kind = 'adjudication'") >= 1);
}

TEST_CASE("undo: one function restores the value before a row, for its annotator and issue only") {
  LabelingFixture f(2);
  ManualLabels store(*f.db);
  std::int64_t first = store.append(f.issues[0], "A", "symptom", "crash", "label", {}, "cli");
  std::int64_t second = store.append(f.issues[0], "A", "symptom", "hang", "label", {}, "cli");
  std::int64_t other = store.append(f.issues[0], "B", "symptom", "crash", "label", {}, "cli");
  auto rows = f.rows();

  // Not A's row, not this issue, no such row: nothing written.
  CHECK_FALSE(store.undo(f.issues[0], "A", other, "web"));
  CHECK_FALSE(store.undo(f.issues[1], "A", second, "web"));
  CHECK_FALSE(store.undo(f.issues[0], "A", 999, "web"));
  CHECK(f.rows() == rows);

  std::optional<std::int64_t> undone = store.undo(f.issues[0], "A", second, "web");
  REQUIRE(undone);
  std::optional<ManualLabelRow> row = store.row(*undone);
  REQUIRE(row);
  CHECK(row->kind == "undo");
  CHECK(row->dimension == "symptom");
  CHECK(row->value == std::optional<std::string>("crash"));  // the value before row `second`
  CHECK(row->source == std::optional<std::string>("web"));
  CHECK(store.current(f.issues[0], "A", "symptom") == std::optional<std::string>("crash"));
  // Undoing the first label leaves no value; the history only grows.
  REQUIRE(store.undo(f.issues[0], "A", first, "web"));
  CHECK_FALSE(store.current(f.issues[0], "A", "symptom"));
  CHECK(store.current(f.issues[0], "B", "symptom") == std::optional<std::string>("crash"));
  check_prefix(rows, f.rows(), "undo");
  CHECK(f.rows().size() == rows.size() + 2);
}
