// tensor_from_proto (exec/tensor.h) on any bytes parsed as an onnx::TensorProto (what an
// input_N.pb or a model's initializer holds). Invariants: it accepts or throws
// std::runtime_error; an accepted tensor has the proto's dims, at most the element cap, and
// exactly its elements' bytes (or strings).
#include <stdexcept>

#include "exec/tensor.h"
#include "fuzz_check.h"

using namespace convfail;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  onnx::TensorProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  constexpr std::int64_t kMaxElements = 1 << 16;
  exec::Tensor t;
  try {
    t = exec::tensor_from_proto(proto, kMaxElements);
  } catch (const std::runtime_error&) {
    return 0;
  }
  FUZZ_CHECK(static_cast<int>(t.dims.size()) == proto.dims_size());
  std::optional<std::int64_t> count = exec::element_count_within(t.dims, kMaxElements);
  FUZZ_CHECK(count && *count <= kMaxElements);
  if (t.elem_type == onnx::TensorProto::STRING) {
    FUZZ_CHECK(static_cast<std::int64_t>(t.strings.size()) == *count);
  } else {
    std::size_t each = exec::elem_size(t.elem_type);
    FUZZ_CHECK(each > 0 && t.bytes.size() == static_cast<std::size_t>(*count) * each);
  }
  std::string ort = exec::ort_type_name(t.elem_type);
  if (!ort.empty()) FUZZ_CHECK(exec::elem_type_from_ort_name(ort) == t.elem_type);
  return 0;
}
