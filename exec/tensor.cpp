#include "exec/tensor.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "exec/child_files.h"

namespace convfail::exec {

using TP = onnx::TensorProto;

std::string ort_type_name(int t) {
  switch (t) {
    case TP::FLOAT:
      return "float32";
    case TP::DOUBLE:
      return "float64";
    case TP::FLOAT16:
      return "float16";
    case TP::INT8:
      return "int8";
    case TP::UINT8:
      return "uint8";
    case TP::INT16:
      return "int16";
    case TP::UINT16:
      return "uint16";
    case TP::INT32:
      return "int32";
    case TP::UINT32:
      return "uint32";
    case TP::INT64:
      return "int64";
    case TP::UINT64:
      return "uint64";
    case TP::BOOL:
      return "bool";
    case TP::BFLOAT16:  // the runner reads and compares it; no binding holds it (boundary Casts)
      return "bfloat16";
    case TP::STRING:
      return "string";
    default:
      return "";
  }
}

int elem_type_from_ort_name(const std::string& name) {
  for (int t = 1; t <= 16; ++t)
    if (ort_type_name(t) == name) return t;
  return 0;
}

std::string onnx_type_name(int t) {
  if (onnx::TensorProto_DataType_IsValid(t))
    return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(t));
  return "type " + std::to_string(t);
}

std::size_t elem_size(int t) {
  switch (t) {
    case TP::DOUBLE:
    case TP::INT64:
    case TP::UINT64:
    case TP::COMPLEX64:
      return 8;
    case TP::COMPLEX128:
      return 16;
    case TP::FLOAT:
    case TP::INT32:
    case TP::UINT32:
      return 4;
    case TP::FLOAT16:
    case TP::BFLOAT16:
    case TP::INT16:
    case TP::UINT16:
      return 2;
    case TP::INT8:
    case TP::UINT8:
    case TP::BOOL:
      return 1;
    default:
      return 0;
  }
}

std::optional<std::int64_t> element_count_within(const std::vector<std::int64_t>& dims,
                                                 std::int64_t max_elements) {
  std::int64_t n = 1;
  for (auto d : dims) {
    if (d < 0) return std::nullopt;
    if (d == 0) return 0;  // an empty tensor, whatever the other dimensions
  }
  for (auto d : dims) {
    if (n > max_elements / d) return std::nullopt;
    n *= d;
  }
  if (n > max_elements) return std::nullopt;
  return n;
}

namespace {

template <typename Out, typename Field>
void append_converted(std::string& bytes, const Field& field) {
  for (const auto& v : field) {
    Out o = static_cast<Out>(v);
    bytes.append(reinterpret_cast<const char*>(&o), sizeof o);
  }
}

}  // namespace

Tensor tensor_from_proto(const onnx::TensorProto& proto, std::int64_t max_elements) {
  Tensor t;
  t.name = proto.name();
  t.elem_type = proto.data_type();
  for (auto d : proto.dims()) {
    if (d < 0) throw std::runtime_error("negative dimension in tensor " + t.name);
    t.dims.push_back(d);
  }
  if (proto.data_location() == TP::EXTERNAL)
    throw std::runtime_error("tensor " + t.name + " uses external data");
  auto count = element_count_within(t.dims, max_elements);
  if (!count)
    throw std::runtime_error("tensor " + t.name + " has more than " + std::to_string(max_elements) +
                             " elements (--max-elements)");
  std::int64_t n = *count;
  if (t.elem_type == TP::STRING) {
    t.strings.assign(proto.string_data().begin(), proto.string_data().end());
    if (static_cast<std::int64_t>(t.strings.size()) != n)
      throw std::runtime_error("string tensor " + t.name + " has the wrong element count");
    return t;
  }
  std::size_t size = elem_size(t.elem_type);
  if (size == 0) throw std::runtime_error("unsupported tensor type " + onnx_type_name(t.elem_type));
  if (proto.has_raw_data()) {
    t.bytes = proto.raw_data();
  } else {
    switch (t.elem_type) {
      case TP::FLOAT:
      case TP::COMPLEX64:
        append_converted<float>(t.bytes, proto.float_data());
        break;
      case TP::DOUBLE:
      case TP::COMPLEX128:
        append_converted<double>(t.bytes, proto.double_data());
        break;
      case TP::INT64:
        append_converted<std::int64_t>(t.bytes, proto.int64_data());
        break;
      case TP::UINT32:
        append_converted<std::uint32_t>(t.bytes, proto.uint64_data());
        break;
      case TP::UINT64:
        append_converted<std::uint64_t>(t.bytes, proto.uint64_data());
        break;
      case TP::INT32:
        append_converted<std::int32_t>(t.bytes, proto.int32_data());
        break;
      case TP::INT16:
        append_converted<std::int16_t>(t.bytes, proto.int32_data());
        break;
      case TP::UINT16:
      case TP::FLOAT16:
      case TP::BFLOAT16:
        append_converted<std::uint16_t>(t.bytes, proto.int32_data());
        break;
      case TP::INT8:
        append_converted<std::int8_t>(t.bytes, proto.int32_data());
        break;
      case TP::UINT8:
      case TP::BOOL:
        append_converted<std::uint8_t>(t.bytes, proto.int32_data());
        break;
      default:
        throw std::runtime_error("unsupported tensor type " + onnx_type_name(t.elem_type));
    }
  }
  if (t.bytes.size() != static_cast<std::size_t>(n) * size)
    throw std::runtime_error("tensor " + t.name + ": data size does not match its dims");
  return t;
}

namespace {

// The bytes of a tensor file, which a child may have written: read the one safe way
// (child_files: a regular file, no link followed, no FIFO opened), at most `limit` bytes.
std::string tensor_file_bytes(const std::string& path, std::uint64_t limit, const char* what) {
  std::filesystem::path p(path);
  std::string why;
  auto data = read_child_file(p.parent_path().string(), p.filename().string(), limit, &why);
  if (!data) {
    if (why.rfind("larger than", 0) == 0)
      throw std::runtime_error(p.filename().string() + " is larger than " + what);
    throw std::runtime_error("cannot read " + path + ": " + why);
  }
  return *data;
}

}  // namespace

Tensor read_tensor_pb(const std::string& path, std::int64_t max_elements) {
  std::string what = std::to_string(max_elements) + " elements allow (--max-elements)";
  std::string data = tensor_file_bytes(
      path, 16 * (static_cast<std::uint64_t>(max_elements) + (1u << 16)), what.c_str());
  onnx::TensorProto proto;
  if (!proto.ParseFromString(data)) throw std::runtime_error(path + " is not a TensorProto");
  return tensor_from_proto(proto, max_elements);
}

void write_tensor_file(const Tensor& t, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (t.elem_type == TP::STRING)
    out << nlohmann::json(t.strings).dump();
  else
    out.write(t.bytes.data(), static_cast<std::streamsize>(t.bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

Tensor read_tensor_file(const std::string& path, int elem_type, std::vector<std::int64_t> dims,
                        std::int64_t max_elements) {
  Tensor t;
  t.elem_type = elem_type;
  t.dims = std::move(dims);
  auto count = element_count_within(t.dims, max_elements);
  if (!count)
    throw std::runtime_error("tensor has more than " + std::to_string(max_elements) + " elements");
  std::size_t each = elem_type == TP::STRING ? 0 : elem_size(elem_type);
  if (elem_type != TP::STRING && each == 0)
    throw std::runtime_error("unsupported tensor type " + onnx_type_name(elem_type));
  // Strings: JSON of at most 6 bytes per character plus quoting; bounded like the .pb reader.
  std::uint64_t limit = each ? static_cast<std::uint64_t>(*count) * each
                             : 16 * static_cast<std::uint64_t>(max_elements) + (1u << 20);
  std::string data = tensor_file_bytes(path, limit, "its shape holds");
  if (each && data.size() != limit)
    throw std::runtime_error("tensor file " + std::filesystem::path(path).filename().string() +
                             " has " + std::to_string(data.size()) +
                             " bytes, not what its shape holds");
  if (each) {
    t.bytes = std::move(data);
    return t;
  }
  nlohmann::json j = nlohmann::json::parse(data, nullptr, false);
  if (!j.is_array() || static_cast<std::int64_t>(j.size()) != *count)
    throw std::runtime_error("string tensor file " + path + " does not hold its shape's strings");
  for (const auto& e : j) {
    if (!e.is_string())
      throw std::runtime_error("string tensor file " + path + " holds a non-string");
    t.strings.push_back(e.get<std::string>());
  }
  return t;
}

void write_tensor_pb(const Tensor& t, const std::string& path) {
  TP proto;
  proto.set_name(t.name);
  proto.set_data_type(t.elem_type);
  for (auto d : t.dims) proto.add_dims(d);
  if (t.elem_type == TP::STRING)
    for (const auto& s : t.strings) proto.add_string_data(s);
  else
    proto.set_raw_data(t.bytes);
  std::ofstream out(path, std::ios::binary);
  if (!out || !proto.SerializeToOstream(&out)) throw std::runtime_error("cannot write " + path);
}

}  // namespace convfail::exec
