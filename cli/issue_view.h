// What the annotation session shows of one issue: the header (repo, number, title, GitHub
// labels, dates, URL), the body and comments as pages of lines with the classifier's evidence
// highlighted, and the latest classifier run's suggestion and evidence per dimension: the
// terminal's rendering of views::IssueDossier (the web serves the same dossier as JSON).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "views/dossier.h"

namespace convfail::cli {

struct Suggestion {
  std::string label;
  double confidence = 0;
  std::vector<std::string> evidence;  // "rule_id in field: matched text"
};

class IssueView {
 public:
  // Renders the issue's dossier (views/dossier: issue, latest classifier run, highlights).
  IssueView(const views::IssueDossier& dossier, bool colour);

  std::string header() const;  // several lines, ends with "\n"
  // The text (body, then comments), evidence highlighted, split into lines.
  const std::vector<std::string>& lines() const { return lines_; }
  // Suggestion per dimension (symptom, cause, subtype, stage) when the classifier gave one.
  const std::map<std::string, Suggestion>& suggestions() const { return suggestions_; }
  // repo#number, escaped for the terminal.
  std::string ref() const;

  // Wraps text in the highlight marks: ANSI reverse video in colour, [[...]] otherwise.
  static std::string mark(const std::string& text, bool colour);

 private:
  std::string highlight(const std::string& text,
                        const std::vector<views::HighlightRange>& ranges) const;

  bool colour_;
  std::string repo_, title_, url_, state_, created_, closed_;
  std::int64_t number_ = 0;
  std::vector<std::string> labels_;
  std::vector<std::string> lines_;
  std::string title_marked_;
  std::map<std::string, Suggestion> suggestions_;
};

}  // namespace convfail::cli
