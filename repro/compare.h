// NaN-aware comparison of output tensors with absolute/relative tolerances.
#pragma once

#include <string>

#include "repro/tensor.h"

namespace convfail::repro {

struct Tolerance {
  double atol = 1e-5;
  double rtol = 1e-3;
};

struct CompareResult {
  bool match = true;
  std::string problem;  // "shape [2,3] vs [3,2]", "type ...", "12 of 60 elements differ", ""
  double max_abs_error = 0;
  double max_rel_error = 0;  // |a-e| / |e| over elements with e != 0
  std::int64_t mismatches = 0;
};

// `actual` against `expected`: same element type class and shape, then element-wise
// |a - e| <= atol + rtol * |e|; NaN equals NaN, infinities must be equal. Strings compare exactly.
CompareResult compare_tensors(const Tensor& actual, const Tensor& expected, const Tolerance& tol);

}  // namespace convfail::repro
