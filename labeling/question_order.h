// The order of the questions of manual labeling: the one rule that both front ends ask, the
// terminal's `annotate` and `adjudicate` sessions (cli/annotation_session) and the web's
// annotate and adjudicate views (web's GET /api/issues/{owner}/{repo}/{number}/questions).
//
// The rule, for one item of a queue:
//  - the item asks its dimensions (the queue item's `dimensions`; none listed: every one of
//    manual_dimensions()), in the order listed;
//  - "subtype" is asked only when the cause it refers to has subtypes in the taxonomy, and then
//    offers exactly that cause's subtypes; every other dimension offers the taxonomy's labels
//    of that dimension, in the taxonomy's order;
//  - the cause the subtype refers to is the cause the person has given for the item; when
//    adjudicating and the adjudicator has given none (the cause is agreed, or not decided
//    yet), the first compared annotator's current cause; else none (no subtype question).
// A cause given later can add or remove the subtype question; since "subtype" follows "cause"
// in manual_dimensions(), that never changes the questions before it, so a front end asks the
// questions again after each answer and goes on from the position it reached.
//
// Plain logic over the taxonomy: what is "given" (the session's answers, the stored labels, a
// choice not stored yet) is read by the caller.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/taxonomy.h"

namespace convfail::labeling {

// What is known of an item when its questions are asked.
struct QuestionState {
  std::vector<std::string> asked;          // the item's dimensions; empty: every manual dimension
  std::optional<std::string> given_cause;  // the cause the person has given for the item
  // Adjudication only: the first compared annotator's current cause (none when annotating).
  std::optional<std::string> compared_cause;
};

struct Question {
  std::string dimension;
  // The labels offered, in the taxonomy's order; they point into the Taxonomy the questions
  // were made from (for "subtype": the subtypes of the cause, as stored under that cause).
  std::vector<const TaxonomyLabel*> choices;
  std::vector<std::string> choice_ids() const;
};

// The cause the subtype question refers to: given_cause, else compared_cause.
std::optional<std::string> subtype_cause(const QuestionState& state);

// The item's questions in the order they are asked, each with its choices. A dimension the
// taxonomy lacks throws UserError (as Taxonomy::dimension).
std::vector<Question> item_questions(const Taxonomy& tax, const QuestionState& state);

// The dimension asked after `answered` among `questions` (nullopt: the item is done, or
// `answered` is not among them).
std::optional<std::string> dimension_after(const std::vector<Question>& questions,
                                           const std::string& answered);

}  // namespace convfail::labeling
