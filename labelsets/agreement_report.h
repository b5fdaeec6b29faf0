// `convfail agreement`: agreement between annotators (or any label sources: hybrid[:A]) per
// dimension, built on labeling/agreement.h (Cohen's kappa with CI, Fleiss' kappa, confusion).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/db.h"
#include "labeling/agreement.h"

namespace convfail::labelsets {

using labeling::ConfusionMatrix;
using labeling::KappaResult;

struct PairAgreement {
  std::string a, b;
  KappaResult kappa;       // on the issues both labeled in this dimension
  ConfusionMatrix matrix;  // rows a, columns b
};

struct DimensionAgreement {
  std::string dimension;
  long n = 0;                          // issues every annotator labeled in this dimension
  double agreement = 0;                // share of those where all annotators gave the same label
  std::vector<PairAgreement> pairs;    // every pair of annotators (one pair for two)
  std::optional<double> fleiss_kappa;  // three or more annotators, n > 0
};

struct AgreementReport {
  std::vector<std::string> annotators;
  std::vector<DimensionAgreement> dimensions;
};

// Throws UsageError for fewer than two annotators or an unknown dimension, UserError for an
// annotator without labels or when the annotators share no labeled issue. Without `dimension`,
// dimensions nobody labeled in common are left out.
AgreementReport compute_agreement(Db& db, const std::vector<std::string>& annotators,
                                  const std::optional<std::string>& dimension = {});

// Human-readable report: per dimension n, raw agreement, kappa with its 95% CI, and the
// confusion table.
std::string format_agreement(const AgreementReport& report);
// {"annotators": [...], "dimensions": {"cause": {"n", "agreement", "kappa", "ci95": [lo, hi],
//  "confusion": {"labels", "counts"}}}}. With two annotators kappa/ci95 are Cohen's; with more,
// kappa is Fleiss' (also "fleiss_kappa"), ci95 is null and "pairs" lists every pair's Cohen.
nlohmann::json agreement_json(const AgreementReport& report);

}  // namespace convfail::labelsets
