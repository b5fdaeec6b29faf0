// The outcome classes of one model (campaign_models.outcome), defined once: every file of
// campaign/ names them through these constants, in this order. Each says who failed:
//   conversion_failure  torch.onnx.export raised (the converter)
//   invalid_export      the export wrote a model the ONNX checker refuses (the converter: a model
//                       ONNX's type constraints or structure rules forbid)
//   ort_failure         ONNX Runtime could not load or run a valid model (the runtime)
//   mismatch            ran, outputs differ from torch's (converter or runtime)
//   success             ran, outputs agree
//   invalid             the model itself is unusable (eager torch failed, a worker's broken
//                       reply): neither the converter's nor the runtime's failure
//   not_run             the harness could not run it (kNotRun below)
// The study's columns: its conversion failures are our conversion_failure; its ORT failures hold
// our invalid_export too (the study ran ONNX Runtime on such models, whose loader refuses them)
// and our ort_failure; mismatch and success are the same.
#pragma once

#include <string>
#include <vector>

namespace convfail::campaign {

inline constexpr const char* kConversionFailure = "conversion_failure";
inline constexpr const char* kInvalidExport = "invalid_export";
inline constexpr const char* kOrtFailure = "ort_failure";
inline constexpr const char* kMismatch = "mismatch";
inline constexpr const char* kSuccess = "success";
inline constexpr const char* kInvalid = "invalid";
// What the harness could not run (a limit of ours or of the ONNX Runtime release: a type its
// binding cannot feed and no wrap could, an opset it predates, --timeout, --memory-mb), with
// the reason in the message: no verdict on the model nor on the converter, never a failure group.
inline constexpr const char* kNotRun = "not_run";

// The seven, in the order tables show them.
inline const std::vector<std::string>& outcome_classes() {
  static const std::vector<std::string> k = {
      kConversionFailure, kInvalidExport, kOrtFailure, kMismatch, kSuccess, kInvalid, kNotRun};
  return k;
}

// How tables head an outcome's column: "Conversion failure", "ORT failure", "Mismatch", ...
inline const char* outcome_title(const std::string& o) {
  if (o == kConversionFailure) return "Conversion failure";
  if (o == kInvalidExport) return "Invalid export";
  if (o == kOrtFailure) return "ORT failure";
  if (o == kMismatch) return "Mismatch";
  if (o == kSuccess) return "Success";
  if (o == kNotRun) return "Not run";
  return "Invalid";
}

// How the classes map onto the study's columns, said under every table beside its figures.
inline constexpr const char* kStudyColumns =
    "Against the study's columns: its conversion failures are our conversion failures (the export "
    "raised); its ORT failures are our invalid exports plus ORT failures (it ran ONNX Runtime on "
    "every exported model, and ONNX Runtime's loader refuses a model the ONNX checker refuses); "
    "mismatch and success are the same; invalid and not run are this tool's own classes (not the "
    "converter's failure: eager torch failed, or the harness could not run the model).";

// The failures of the converter or the runtime: what is grouped, minimised and compared.
inline bool is_failure(const std::string& o) {
  return o == kConversionFailure || o == kInvalidExport || o == kOrtFailure || o == kMismatch;
}

// A model the harness ran to a verdict on the converter or the runtime: every outcome but invalid
// (the model's own problem) and not_run (our harness's limit). Comparisons and gates look only at
// these.
inline bool is_comparable(const std::string& o) {
  return o != kInvalid && o != kNotRun;
}

inline bool is_outcome(const std::string& s) {
  for (const auto& o : outcome_classes())
    if (o == s) return true;
  return false;
}

}  // namespace convfail::campaign
