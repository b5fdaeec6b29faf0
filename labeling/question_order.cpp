#include "labeling/question_order.h"

#include <algorithm>

#include "labeling/manual_labels.h"

namespace convfail::labeling {

std::vector<std::string> Question::choice_ids() const {
  std::vector<std::string> out;
  for (const TaxonomyLabel* l : choices) out.push_back(l->id);
  return out;
}

std::optional<std::string> subtype_cause(const QuestionState& state) {
  return state.given_cause ? state.given_cause : state.compared_cause;
}

namespace {

// The subtypes of `cause` as the taxonomy stores them under it (none: not a cause with subtypes).
std::vector<const TaxonomyLabel*> subtypes_of(const Taxonomy& tax,
                                              const std::optional<std::string>& cause) {
  std::vector<const TaxonomyLabel*> out;
  if (const TaxonomyLabel* c = cause ? tax.find_label("cause", *cause) : nullptr)
    for (const TaxonomyLabel& s : c->subtypes) out.push_back(&s);
  return out;
}

}  // namespace

std::vector<Question> item_questions(const Taxonomy& tax, const QuestionState& state) {
  const std::vector<std::string>& dims = state.asked.empty() ? manual_dimensions() : state.asked;
  std::vector<Question> out;
  for (const std::string& dim : dims) {
    Question q{dim, {}};
    if (dim == "subtype") {
      q.choices = subtypes_of(tax, subtype_cause(state));
      if (q.choices.empty()) continue;  // the cause has no subtypes (or there is no cause)
    } else {
      for (const TaxonomyLabel& l : tax.dimension(dim).labels) q.choices.push_back(&l);
    }
    out.push_back(std::move(q));
  }
  return out;
}

std::optional<std::string> dimension_after(const std::vector<Question>& questions,
                                           const std::string& answered) {
  auto it = std::find_if(questions.begin(), questions.end(),
                         [&](const Question& q) { return q.dimension == answered; });
  if (it == questions.end() || it + 1 == questions.end()) return std::nullopt;
  return (it + 1)->dimension;
}

}  // namespace convfail::labeling
