// Agreement between label sources (annotators, the consensus, a classifier run, the hybrid) per
// dimension, built on labeling/agreement.h (Cohen's kappa with CI, Fleiss' kappa, confusion): the
// one implementation behind `convfail agreement`, the report's agreement section and the web's
// comparison.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/db.h"
#include "labeling/agreement.h"
#include "labeling/label_sets.h"

namespace convfail::labelsets {

using labeling::ConfusionMatrix;
using labeling::KappaResult;

struct PairAgreement {
  std::string a, b;
  KappaResult kappa;       // on the issues both labeled in this dimension
  ConfusionMatrix matrix;  // rows a, columns b
};

// One source's labels: issue id -> dimension -> label. An empty value counts as no label.
using LabelsByIssue = std::map<std::int64_t, std::map<std::string, std::string>>;
LabelsByIssue labels_by_issue(const std::vector<labeling::IssueLabels>& labels);

// Agreement of two label sets on one dimension: Cohen's kappa and the confusion table on the
// issues both label in it (n = 0 when none). `a` and `b` name the sources.
PairAgreement pair_agreement(const std::string& a, const LabelsByIssue& a_labels,
                             const std::string& b, const LabelsByIssue& b_labels,
                             const std::string& dimension);

struct DimensionAgreement {
  std::string dimension;
  long n = 0;                          // issues every source labeled in this dimension
  double agreement = 0;                // share of those where all sources gave the same label
  std::vector<PairAgreement> pairs;    // every pair of sources (one pair for two)
  std::optional<double> fleiss_kappa;  // three or more sources, n > 0
};

struct AgreementReport {
  std::vector<std::string> annotators;  // the sources, as given
  std::vector<DimensionAgreement> dimensions;
};

// Agreement of two or more label sources: annotators, or any source load_label_set reads
// (`classifier[:RUN]`, `consensus`, `hybrid[:ANNOTATOR]`). Throws UsageError for fewer than two
// sources, a malformed source or an unknown dimension, UserError for an annotator (or source)
// without labels or when the sources share no labeled issue. Without `dimension`, dimensions
// nobody labeled in common are left out.
AgreementReport compute_agreement(Db& db, const std::vector<std::string>& sources,
                                  const std::optional<std::string>& dimension = {});
// The same over label sets already loaded (names[i] labels sets[i]); no database.
AgreementReport agreement_of(const std::vector<std::string>& names,
                             const std::vector<LabelsByIssue>& sets,
                             const std::optional<std::string>& dimension = {});

// Human-readable report: per dimension n, raw agreement, kappa with its 95% CI, and the
// confusion table.
std::string format_agreement(const AgreementReport& report);
// {"annotators": [...], "dimensions": {"cause": {"n", "agreement", "kappa", "ci95": [lo, hi],
//  "confusion": {"labels", "counts"}}}}. With two annotators kappa/ci95 are Cohen's; with more,
// kappa is Fleiss' (also "fleiss_kappa"), ci95 is null and "pairs" lists every pair's Cohen.
nlohmann::json agreement_json(const AgreementReport& report);

}  // namespace convfail::labelsets
