// The study's outcome classes of one model (campaign_models.outcome), defined once: every file of
// testing/ names them through these constants, in this order.
#pragma once

#include <string>
#include <vector>

namespace convfail::testing {

inline constexpr const char* kConversionFailure = "conversion_failure";
inline constexpr const char* kOrtFailure = "ort_failure";
inline constexpr const char* kMismatch = "mismatch";
inline constexpr const char* kSuccess = "success";
inline constexpr const char* kInvalid = "invalid";
// What the harness could not run (a limit of ours or of the ONNX Runtime release: a type its
// binding cannot feed and no wrap could, an opset it predates, --timeout, --memory-mb), with
// the reason in the message: no verdict on the model nor on the converter, never a failure group.
inline constexpr const char* kNotRun = "not_run";

// The six, in the order tables show them.
inline const std::vector<std::string>& outcome_classes() {
  static const std::vector<std::string> k = {kConversionFailure, kOrtFailure, kMismatch,
                                             kSuccess,           kInvalid,    kNotRun};
  return k;
}

// How tables head an outcome's column: "Conversion failure", "ORT failure", "Mismatch", ...
inline const char* outcome_title(const std::string& o) {
  if (o == kConversionFailure) return "Conversion failure";
  if (o == kOrtFailure) return "ORT failure";
  if (o == kMismatch) return "Mismatch";
  if (o == kSuccess) return "Success";
  if (o == kNotRun) return "Not run";
  return "Invalid";
}

inline bool is_outcome(const std::string& s) {
  for (const auto& o : outcome_classes())
    if (o == s) return true;
  return false;
}

}  // namespace convfail::testing
