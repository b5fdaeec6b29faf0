// The issues the web's issue list keeps after its label and verdict filters, found through the
// owners' readers (labelsets' label sets, repro's verdicts) as a set of ids the list then pages
// in SQL (core's IssueFilter::ids), with the label set's values for the rows shown.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"
#include "labeling/label_sets.h"
#include "labelsets/source_labels.h"

namespace convfail::views {

struct IssueSelection {
  // A label source (labeling::LabelSource text): only issues it labels, its labels filtered.
  std::optional<std::string> source;
  std::map<std::string, std::string> labels;  // dimension -> label id the source must give
  // The lowest confidence over the issue's dimensions in this range (sources with confidence).
  std::optional<double> min_confidence, max_confidence;
  // Only issues where `source` and `compare` share a labeled dimension and agree on all of them
  // (agree = true) or differ on one at least (false).
  std::optional<std::string> compare;
  std::optional<bool> agree;
  std::optional<std::string> verdict;  // only issues with a repro run of this verdict
};

struct SelectedIssues {
  std::optional<std::vector<std::int64_t>> ids;          // none: no filter, every issue
  std::map<std::int64_t, labeling::IssueLabels> labels;  // of `source`, by issue id
};

// Throws what labelsets::load_label_set throws (UsageError, UserError) for a bad source.
SelectedIssues select_issues(Db& db, const IssueSelection& selection);

}  // namespace convfail::views
