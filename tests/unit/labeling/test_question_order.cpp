#include <doctest/doctest.h>

#include "core/error.h"
#include "core/taxonomy.h"
#include "labeling/manual_labels.h"
#include "labeling/question_order.h"
#include "test_helpers.h"

using namespace convfail;
using labeling::item_questions;
using labeling::QuestionState;

namespace {

std::vector<std::string> question_dims(const std::vector<labeling::Question>& questions) {
  std::vector<std::string> out;
  for (const auto& q : questions) out.push_back(q.dimension);
  return out;
}

// The choice ids of the question on `dim`; {"(not asked)"} when there is none.
std::vector<std::string> choices_of(const std::vector<labeling::Question>& questions,
                                    const std::string& dim) {
  for (const auto& q : questions)
    if (q.dimension == dim) return q.choice_ids();
  return {"(not asked)"};
}

}  // namespace

TEST_CASE("question order: subtype only when the cause given has subtypes") {
  const Taxonomy& tax = test::taxonomy();
  REQUIRE(!tax.subtype_ids("type_problem").empty());
  REQUIRE(tax.subtype_ids("shape_problem").empty());

  // No cause given yet: every manual dimension but the subtype, each with the taxonomy's labels.
  auto qs = item_questions(tax, QuestionState{});
  CHECK(question_dims(qs) == std::vector<std::string>{"symptom", "cause", "stage"});
  for (const auto& q : qs) CHECK(q.choice_ids() == tax.label_ids(q.dimension));

  // A cause with subtypes: the subtype follows the cause and offers exactly its subtypes.
  qs = item_questions(tax, QuestionState{{}, "type_problem", std::nullopt});
  CHECK(question_dims(qs) == std::vector<std::string>{"symptom", "cause", "subtype", "stage"});
  CHECK(choices_of(qs, "subtype") == tax.subtype_ids("type_problem"));
  CHECK(choices_of(qs, "subtype") == std::vector<std::string>{"node", "tensor", "conventional"});
  // The choices are the taxonomy's entries under that cause (their codebook with them).
  const TaxonomyLabel* cause = tax.find_label("cause", "type_problem");
  REQUIRE(cause != nullptr);
  REQUIRE(qs.size() == 4);
  CHECK(qs[2].choices.front() == &cause->subtypes.front());

  // A cause without subtypes, and a cause the taxonomy does not know: no subtype question.
  CHECK(question_dims(item_questions(tax, QuestionState{{}, "shape_problem", std::nullopt})) ==
        std::vector<std::string>{"symptom", "cause", "stage"});
  CHECK(question_dims(item_questions(tax, QuestionState{{}, "no_such_cause", std::nullopt})) ==
        std::vector<std::string>{"symptom", "cause", "stage"});
}

TEST_CASE("question order: the item's asked dimensions, in their order") {
  const Taxonomy& tax = test::taxonomy();
  CHECK(
      question_dims(item_questions(tax, QuestionState{{"symptom", "stage"}, "type_problem", {}})) ==
      std::vector<std::string>{"symptom",
                               "stage"});  // subtype not asked: not among the item's dimensions
  CHECK(question_dims(item_questions(tax, QuestionState{{"stage", "symptom"}, {}, {}})) ==
        std::vector<std::string>{"stage", "symptom"});
  CHECK(question_dims(
            item_questions(tax, QuestionState{{"cause", "subtype"}, "incompatibility", {}})) ==
        std::vector<std::string>{"cause", "subtype"});
  CHECK(item_questions(tax, QuestionState{{"subtype"}, "shape_problem", {}}).empty());
  CHECK(item_questions(tax, QuestionState{{"subtype"}, {}, {}}).empty());
  // Asked empty means every manual dimension.
  CHECK(question_dims(item_questions(tax, QuestionState{{}, "incompatibility", {}})) ==
        labeling::manual_dimensions());
  CHECK_THROWS_AS(item_questions(tax, QuestionState{{"colour"}, {}, {}}), UserError);
}

TEST_CASE(
    "question order: adjudicating, the first compared annotator's cause unless one is given") {
  const Taxonomy& tax = test::taxonomy();
  // Cause agreed (not asked), subtype disputed: the first annotator's cause gives the subtypes.
  QuestionState agreed{{"subtype"}, std::nullopt, "incompatibility"};
  CHECK(labeling::subtype_cause(agreed) == "incompatibility");
  auto qs = item_questions(tax, agreed);
  REQUIRE(question_dims(qs) == std::vector<std::string>{"subtype"});
  CHECK(qs[0].choice_ids() == tax.subtype_ids("incompatibility"));
  // The first annotator's cause without subtypes: no subtype question.
  CHECK(item_questions(tax, QuestionState{{"subtype"}, std::nullopt, "shape_problem"}).empty());
  // The adjudicator's cause wins over the annotator's, either way.
  QuestionState decided{{"cause", "subtype"}, "type_problem", "incompatibility"};
  CHECK(labeling::subtype_cause(decided) == "type_problem");
  CHECK(choices_of(item_questions(tax, decided), "subtype") == tax.subtype_ids("type_problem"));
  CHECK(question_dims(item_questions(
            tax, QuestionState{{"cause", "subtype"}, "shape_problem", "incompatibility"})) ==
        std::vector<std::string>{"cause"});
  // Annotating (no compared annotator), nothing given: no cause.
  CHECK_FALSE(labeling::subtype_cause(QuestionState{}).has_value());
}

TEST_CASE("question order: the dimension after an answer") {
  const Taxonomy& tax = test::taxonomy();
  auto with = item_questions(tax, QuestionState{{}, "type_problem", {}});
  CHECK(labeling::dimension_after(with, "symptom") == "cause");
  CHECK(labeling::dimension_after(with, "cause") == "subtype");
  CHECK(labeling::dimension_after(with, "subtype") == "stage");
  CHECK_FALSE(labeling::dimension_after(with, "stage").has_value());  // the item is done
  auto without = item_questions(tax, QuestionState{{}, "shape_problem", {}});
  CHECK(labeling::dimension_after(without, "cause") == "stage");
  CHECK_FALSE(labeling::dimension_after(without, "subtype").has_value());  // not asked
}
