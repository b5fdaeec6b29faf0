#include "repro/compare.h"

#include <cmath>
#include <sstream>

namespace convfail::repro {

namespace {

std::string dims_text(const std::vector<std::int64_t>& dims) {
  std::ostringstream s;
  s << '[';
  for (size_t i = 0; i < dims.size(); ++i) s << (i ? "," : "") << dims[i];
  s << ']';
  return s.str();
}

}  // namespace

CompareResult compare_tensors(const Tensor& actual, const Tensor& expected, const Tolerance& tol) {
  CompareResult r;
  if (actual.elem_type != expected.elem_type) {
    r.match = false;
    r.problem = "type " + onnx_type_name(actual.elem_type) + " vs expected " +
                onnx_type_name(expected.elem_type);
    return r;
  }
  if (actual.dims != expected.dims) {
    r.match = false;
    r.problem = "shape " + dims_text(actual.dims) + " vs expected " + dims_text(expected.dims);
    return r;
  }
  std::int64_t n = expected.element_count();
  if (expected.elem_type == onnx::TensorProto::STRING) {
    for (std::int64_t i = 0; i < n; ++i)
      if (actual.strings[i] != expected.strings[i]) ++r.mismatches;
  } else {
    for (std::int64_t i = 0; i < n; ++i) {
      double a = actual.value(i), e = expected.value(i);
      if (std::isnan(a) || std::isnan(e)) {
        if (std::isnan(a) != std::isnan(e)) {
          ++r.mismatches;
          r.max_abs_error = INFINITY;
        }
        continue;
      }
      if (std::isinf(a) || std::isinf(e)) {
        if (a != e) {
          ++r.mismatches;
          r.max_abs_error = INFINITY;
        }
        continue;
      }
      double diff = std::fabs(a - e);
      r.max_abs_error = std::max(r.max_abs_error, diff);
      if (e != 0) r.max_rel_error = std::max(r.max_rel_error, diff / std::fabs(e));
      if (diff > tol.atol + tol.rtol * std::fabs(e)) ++r.mismatches;
    }
  }
  if (r.mismatches) {
    r.match = false;
    r.problem = std::to_string(r.mismatches) + " of " + std::to_string(n) + " elements differ";
  }
  return r;
}

}  // namespace convfail::repro
