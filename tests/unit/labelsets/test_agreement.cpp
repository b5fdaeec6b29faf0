#include <doctest/doctest.h>

#include <filesystem>

#include "core/error.h"
#include "labeling/label_io.h"
#include "labeling/manual_labels.h"
#include "labeling_fixture.h"
#include "labelsets/agreement_report.h"

using namespace convfail;
using namespace convfail::labeling;
using namespace convfail::labelsets;
using convfail::test::LabelingFixture;

namespace {
void label(LabelingFixture& f, int issue, const char* who, const char* symptom) {
  labeling::record_labels(*f.db, f.tax, f.issues[issue], who, {symptom, {}, {}, {}, {}}, "cli");
}
}  // namespace

TEST_CASE("agreement: two annotators, by hand") {
  LabelingFixture f(6);
  // A: crash crash crash hang hang crash ; B: crash crash hang hang hang (issue 5 unlabeled by B)
  const char* a[] = {"crash", "crash", "crash", "hang", "hang", "crash"};
  const char* b[] = {"crash", "crash", "hang", "hang", "hang"};
  for (int i = 0; i < 6; ++i) label(f, i, "A", a[i]);
  for (int i = 0; i < 5; ++i) label(f, i, "B", b[i]);
  AgreementReport r = compute_agreement(*f.db, {"A", "B"});
  REQUIRE(r.dimensions.size() == 1);  // only symptom was labeled
  const DimensionAgreement& d = r.dimensions[0];
  CHECK(d.n == 5);
  CHECK(d.agreement == doctest::Approx(0.8));
  // p_o = 0.8; A: crash 3/5, hang 2/5; B: crash 2/5, hang 3/5; p_e = 0.24 + 0.24 = 0.48;
  // kappa = 0.32 / 0.52 = 0.6154
  CHECK(d.pairs[0].kappa.kappa == doctest::Approx(0.32 / 0.52));
  CHECK(d.pairs[0].matrix.counts == std::vector<std::vector<long>>{{2, 1}, {0, 2}});
  auto j = agreement_json(r);
  CHECK(j["dimensions"]["symptom"]["n"] == 5);
  CHECK(j["dimensions"]["symptom"]["kappa"].get<double>() == doctest::Approx(0.32 / 0.52));
  CHECK(j["dimensions"]["symptom"]["ci95"].size() == 2);
  std::string text = format_agreement(r);
  CHECK(text.find("symptom: n = 5, agreement = 80.0%, κ = 0.62") != std::string::npos);

  CHECK_THROWS_AS(compute_agreement(*f.db, {"A"}), UsageError);
  CHECK_THROWS_WITH_AS(compute_agreement(*f.db, {"A", "Z"}),
                       "annotator \"Z\" has no labels; annotators: A, B", UserError);
  CHECK(compute_agreement(*f.db, {"A", "B"}, std::string("cause")).dimensions[0].n == 0);
}

TEST_CASE("agreement: three annotators add Fleiss' kappa over issues all labeled") {
  LabelingFixture f(4);
  const char* a[] = {"crash", "crash", "hang", "hang"};
  const char* b[] = {"crash", "hang", "hang", "hang"};
  const char* c[] = {"crash", "crash", "hang", "crash"};
  for (int i = 0; i < 4; ++i) {
    label(f, i, "A", a[i]);
    label(f, i, "B", b[i]);
    label(f, i, "C", c[i]);
  }
  AgreementReport r = compute_agreement(*f.db, {"A", "B", "C"});
  const DimensionAgreement& d = r.dimensions[0];
  CHECK(d.pairs.size() == 3);
  // Per item P_i: (3 same) 1, (2/1) 1/3, 1, 1/3 -> P = 2/3; p_crash = 6/12, p_hang = 6/12 ->
  // P_e = 0.5 -> kappa = (2/3 - 1/2) / (1/2) = 1/3
  REQUIRE(d.fleiss_kappa.has_value());
  CHECK(*d.fleiss_kappa == doctest::Approx(1.0 / 3));
  CHECK(d.agreement == doctest::Approx(0.5));
  CHECK(agreement_json(r)["dimensions"]["symptom"]["kappa"].get<double>() ==
        doctest::Approx(1.0 / 3));
}

TEST_CASE("agreement: the study's pilot (pilot.csv) gives kappa 0.90 cause, 0.95 symptom") {
  std::string pilot = test::shared_dir() + "/datasets/jajal2024/pilot.csv";
  if (!std::filesystem::exists(pilot)) return;  // shared data missing: nothing to check
  LabelingFixture f(0);
  labeling::LabelImportOptions o;
  o.create_missing = true;
  auto imported = labeling::import_label_csv(*f.db, f.tax, pilot, o);
  CHECK(imported.created_issues == 60);
  AgreementReport r = compute_agreement(*f.db, {"R1", "R2"});
  for (const auto& d : r.dimensions) {
    CHECK(d.n == 60);
    if (d.dimension == "cause")
      CHECK(d.pairs[0].kappa.kappa == doctest::Approx(0.903).epsilon(0.001));
    if (d.dimension == "symptom")
      CHECK(d.pairs[0].kappa.kappa == doctest::Approx(0.953).epsilon(0.001));
  }
  CHECK(r.dimensions.size() == 2);
}

TEST_CASE("agreement: a classifier run against an annotator, as `agreement` and the web give it") {
  LabelingFixture f(5);
  f.db->exec("INSERT INTO classifier_runs(id, rules_hash) VALUES (1, 'h')");
  // classifier: crash crash hang hang (issue 4 not labeled); A: crash hang hang hang crash
  const char* predicted[] = {"crash", "crash", "hang", "hang"};
  for (int i = 0; i < 4; ++i) {
    Stmt st(*f.db,
            "INSERT INTO classifier_labels(run_id, issue_id, dimension, label, confidence) "
            "VALUES (1, ?, 'symptom', ?, 0.9)");
    st.bind(1, f.issues[i]).bind(2, predicted[i]);
    st.run();
  }
  const char* a[] = {"crash", "hang", "hang", "hang", "crash"};
  for (int i = 0; i < 5; ++i) label(f, i, "A", a[i]);

  AgreementReport r = compute_agreement(*f.db, {"classifier", "A"});
  REQUIRE(r.dimensions.size() == 1);
  const DimensionAgreement& d = r.dimensions[0];
  CHECK(d.dimension == "symptom");
  CHECK(d.n == 4);
  CHECK(d.agreement == doctest::Approx(0.75));
  // p_o = 0.75; classifier crash 2/4, hang 2/4; A crash 1/4, hang 3/4; p_e = 0.125 + 0.375 = 0.5
  CHECK(d.pairs[0].kappa.kappa == doctest::Approx(0.5));
  CHECK(d.pairs[0].a == "classifier");
  CHECK(d.pairs[0].matrix.counts == std::vector<std::vector<long>>{{1, 1}, {0, 2}});
  // The run named by id is the same source; the pair is symmetric in n and kappa.
  AgreementReport by_run = compute_agreement(*f.db, {"A", "classifier:1"});
  CHECK(by_run.dimensions[0].n == 4);
  CHECK(by_run.dimensions[0].pairs[0].kappa.kappa == doctest::Approx(0.5));
  CHECK(agreement_json(r)["annotators"] == nlohmann::json{"classifier", "A"});
  CHECK_THROWS_AS(compute_agreement(*f.db, {"classifier:2", "A"}), UserError);  // no such run
  CHECK_THROWS_AS(compute_agreement(*f.db, {"classifier:x", "A"}), UsageError);
}

TEST_CASE(
    "agreement: pair_agreement pairs two label sets on one dimension, empty values unlabeled") {
  std::vector<IssueLabels> left(3), right(3);
  for (int i = 0; i < 3; ++i) left[i].issue_id = right[i].issue_id = i + 1;
  left[0].values = {{"cause", "typo"}, {"stage", "export"}};
  left[1].values = {{"cause", "others"}};
  left[2].values = {{"cause", ""}};  // no label
  right[0].values = {{"cause", "typo"}};
  right[1].values = {{"cause", "typo"}};
  right[2].values = {{"cause", "typo"}};
  PairAgreement p =
      pair_agreement("L", labels_by_issue(left), "R", labels_by_issue(right), "cause");
  CHECK(p.kappa.n == 2);
  CHECK(p.kappa.observed == doctest::Approx(0.5));
  CHECK(p.matrix.labels == std::vector<std::string>{"others", "typo"});
  CHECK(p.matrix.counts == std::vector<std::vector<long>>{{0, 1}, {0, 1}});
  CHECK(pair_agreement("L", labels_by_issue(left), "R", labels_by_issue(right), "stage").kappa.n ==
        0);
}
