// Output comparison: NaN-aware, with absolute/relative tolerances. The comparison itself runs in
// the sandboxed ONNX Runtime runner (runner/runner.js, compareTensors), where the tensors are;
// these are its parameters and results.
#pragma once

#include <cstdint>
#include <string>

namespace convfail::exec {

struct Tolerance {
  double atol = 1e-5;
  double rtol = 1e-3;
};

// `actual` against `expected`: same element type and shape, then element-wise
// |a - e| <= atol + rtol * |e|; NaN equals NaN, infinities must be equal. Strings compare exactly.
struct CompareResult {
  bool match = true;
  std::string problem;  // "shape [2,3] vs expected [3,2]", "type ...", "12 of 60 elements differ"
  double max_abs_error = 0;  // infinity when a NaN or an infinity differs
  double max_rel_error = 0;  // |a-e| / |e| over elements with e != 0
  std::int64_t mismatches = 0;
  // The smallest t at which the comparison passes with atol = rtol = t: the largest
  // |a - e| / (1 + |e|) over the elements; infinity when no t does (a non-finite value on one
  // side, a shape, type or missing output); < 0 when the runner did not say.
  double min_tolerance = -1;
  std::string type;  // the expected element type (FLOAT, INT64, BOOL, ...), "" when unknown
};

struct OutputCheck {
  std::string output;
  std::string against;  // reference | optimized  (all-optimizations vs disabled)
  std::string level;    // the session compared (disabled | all)
  CompareResult result;
};

}  // namespace convfail::exec
