// Tensors given to the ONNX Runtime runner (input_N.pb, output_N.pb): ONNX TensorProto -> raw
// little-endian bytes in files (string tensors as a JSON array), and the element-count cap.
// Generated inputs are made by the runner itself (runner/runner.js), never here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace convfail::exec {

struct Tensor {
  std::string name;
  int elem_type = 0;  // onnx::TensorProto_DataType
  std::vector<std::int64_t> dims;
  std::string bytes;                 // raw little-endian data (not for strings)
  std::vector<std::string> strings;  // for STRING tensors
};

// The element count of `dims` when every dimension is >= 0 and the product is at most
// `max_elements` (computed without overflow), else nullopt.
std::optional<std::int64_t> element_count_within(const std::vector<std::int64_t>& dims,
                                                 std::int64_t max_elements);

// The runner's type name ("float32", "int64", "bool", "string", ...); "" when the runner cannot
// carry the type (complex, float8, ...). float16 and bfloat16 are named even where the release's
// binding cannot hold them: the runner reads, widens and compares them (OrtRunner::unheld_types).
std::string ort_type_name(int elem_type);
// Inverse of ort_type_name; 0 when unknown.
int elem_type_from_ort_name(const std::string& name);
// ONNX's name for a type ("FLOAT", "BFLOAT16", ...), for messages.
std::string onnx_type_name(int elem_type);
std::size_t elem_size(int elem_type);

// From a TensorProto (raw_data or the typed fields). Throws std::runtime_error when the data
// does not match the dims, the dims hold more than `max_elements` or the type is not supported.
// External data is not supported.
Tensor tensor_from_proto(const onnx::TensorProto& proto, std::int64_t max_elements);
// Reads a .pb file holding a TensorProto; a file larger than 16 bytes per allowed element (plus
// 1 MiB) is refused before it is read. Throws std::runtime_error.
Tensor read_tensor_pb(const std::string& path, std::int64_t max_elements);

// Writes the data the runner reads (raw bytes, or JSON for strings).
void write_tensor_file(const Tensor& t, const std::string& path);
// Reads what write_tensor_file (or the runner, for the outputs it saves) wrote, given the type
// and dims it holds. Throws std::runtime_error when the dims hold more than `max_elements` or the
// file's size (or string count) does not match them.
Tensor read_tensor_file(const std::string& path, int elem_type, std::vector<std::int64_t> dims,
                        std::int64_t max_elements);
// Writes `t` as a TensorProto (.pb, raw_data or string_data), the format of input_N.pb.
void write_tensor_pb(const Tensor& t, const std::string& path);

}  // namespace convfail::exec
