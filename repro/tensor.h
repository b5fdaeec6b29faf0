// Tensors exchanged with the ONNX Runtime runner: ONNX TensorProto <-> raw little-endian bytes
// in files (string tensors as a JSON array), plus deterministic input generation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace convfail::repro {

struct Tensor {
  std::string name;
  int elem_type = 0;  // onnx::TensorProto_DataType
  std::vector<std::int64_t> dims;
  std::string bytes;                 // raw little-endian data (not for strings)
  std::vector<std::string> strings;  // for STRING tensors

  std::int64_t element_count() const;
  // Element i as a double (float16 decoded, bool as 0/1). Not for strings.
  double value(std::int64_t i) const;
};

// The runner's type name ("float32", "int64", "bool", "string", ...); "" when onnxruntime-node
// cannot carry the type (bfloat16, complex, float8, ...).
std::string ort_type_name(int elem_type);
// Inverse of ort_type_name; 0 when unknown.
int elem_type_from_ort_name(const std::string& name);
// ONNX's name for a type ("FLOAT", "BFLOAT16", ...), for messages.
std::string onnx_type_name(int elem_type);
std::size_t elem_size(int elem_type);

// From a TensorProto (raw_data or the typed fields). Throws std::runtime_error when the data
// does not match the dims or the type is not supported. External data is not supported.
Tensor tensor_from_proto(const onnx::TensorProto& proto);
// Reads a .pb file holding a TensorProto. Throws std::runtime_error.
Tensor read_tensor_pb(const std::string& path);

// Writes the data the runner reads (raw bytes, or JSON for strings).
void write_tensor_file(const Tensor& t, const std::string& path);
// Reads a runner output file of the given ORT type name and dims.
Tensor read_tensor_file(const std::string& path, const std::string& ort_type,
                        const std::vector<std::int64_t>& dims);

// Deterministic data for an input of `elem_type` and `dims`: floats in [-1, 1), integers in
// [0, 4), booleans alternating, strings "s0", "s1", ... The same seed gives the same bytes.
Tensor generate_tensor(const std::string& name, int elem_type,
                       const std::vector<std::int64_t>& dims, std::uint64_t seed);

float half_to_float(std::uint16_t h);

}  // namespace convfail::repro
