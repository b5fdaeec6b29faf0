#include "repro/tensor.h"

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace convfail::repro {

using TP = onnx::TensorProto;

float half_to_float(std::uint16_t h) {
  std::uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) mant <<= 1, --exp;
      bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

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

std::int64_t Tensor::element_count() const {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

double Tensor::value(std::int64_t i) const {
  const char* p = bytes.data() + i * static_cast<std::int64_t>(elem_size(elem_type));
  auto get = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (elem_type) {
    case TP::FLOAT:
      return get(float{});
    case TP::DOUBLE:
      return get(double{});
    case TP::FLOAT16:
      return half_to_float(get(std::uint16_t{}));
    case TP::INT8:
      return get(std::int8_t{});
    case TP::UINT8:
    case TP::BOOL:
      return get(std::uint8_t{});
    case TP::INT16:
      return get(std::int16_t{});
    case TP::UINT16:
      return get(std::uint16_t{});
    case TP::INT32:
      return get(std::int32_t{});
    case TP::UINT32:
      return get(std::uint32_t{});
    case TP::INT64:
      return static_cast<double>(get(std::int64_t{}));
    case TP::UINT64:
      return static_cast<double>(get(std::uint64_t{}));
    default:
      throw std::runtime_error("no numeric value for " + onnx_type_name(elem_type));
  }
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

Tensor tensor_from_proto(const onnx::TensorProto& proto) {
  Tensor t;
  t.name = proto.name();
  t.elem_type = proto.data_type();
  for (auto d : proto.dims()) {
    if (d < 0) throw std::runtime_error("negative dimension in tensor " + t.name);
    t.dims.push_back(d);
  }
  if (proto.data_location() == TP::EXTERNAL)
    throw std::runtime_error("tensor " + t.name + " uses external data");
  std::int64_t n = t.element_count();
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

Tensor read_tensor_pb(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  onnx::TensorProto proto;
  if (!proto.ParseFromIstream(&in)) throw std::runtime_error(path + " is not a TensorProto");
  return tensor_from_proto(proto);
}

void write_tensor_file(const Tensor& t, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (t.elem_type == TP::STRING)
    out << nlohmann::json(t.strings).dump();
  else
    out.write(t.bytes.data(), static_cast<std::streamsize>(t.bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

Tensor read_tensor_file(const std::string& path, const std::string& ort_type,
                        const std::vector<std::int64_t>& dims) {
  Tensor t;
  t.elem_type = elem_type_from_ort_name(ort_type);
  t.dims = dims;
  if (t.elem_type == 0) throw std::runtime_error("runner returned unknown type " + ort_type);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read runner output " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  if (t.elem_type == TP::STRING) {
    t.strings = nlohmann::json::parse(ss.str()).get<std::vector<std::string>>();
  } else {
    t.bytes = ss.str();
    if (t.bytes.size() != static_cast<std::size_t>(t.element_count()) * elem_size(t.elem_type))
      throw std::runtime_error("runner output " + path + " has the wrong size");
  }
  return t;
}

Tensor generate_tensor(const std::string& name, int elem_type,
                       const std::vector<std::int64_t>& dims, std::uint64_t seed) {
  Tensor t;
  t.name = name;
  t.elem_type = elem_type;
  t.dims = dims;
  std::int64_t n = t.element_count();
  std::uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
  auto next = [&state] {  // PCG-style LCG, top bits
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(state >> 33);
  };
  auto put = [&t](auto v) { t.bytes.append(reinterpret_cast<const char*>(&v), sizeof v); };
  for (std::int64_t i = 0; i < n; ++i) {
    double unit = next() / 2147483648.0 * 2 - 1;  // [-1, 1)
    std::uint32_t small = next() % 4;
    switch (elem_type) {
      case TP::FLOAT:
        put(static_cast<float>(unit));
        break;
      case TP::DOUBLE:
        put(unit);
        break;
      case TP::FLOAT16: {  // a value in [-1, 1) with 10-bit mantissa, encoded directly
        float f = static_cast<float>(unit);
        std::uint32_t bits;
        std::memcpy(&bits, &f, 4);
        std::uint16_t h = static_cast<std::uint16_t>(
            ((bits >> 16) & 0x8000u) |
            ((((bits >> 23) & 0xff) < 113) ? 0 : ((((bits >> 23) & 0xff) - 112) << 10)) |
            ((bits >> 13) & 0x3ffu));
        put(h);
        break;
      }
      case TP::INT8:
        put(static_cast<std::int8_t>(small));
        break;
      case TP::UINT8:
        put(static_cast<std::uint8_t>(small));
        break;
      case TP::INT16:
        put(static_cast<std::int16_t>(small));
        break;
      case TP::UINT16:
        put(static_cast<std::uint16_t>(small));
        break;
      case TP::INT32:
        put(static_cast<std::int32_t>(small));
        break;
      case TP::UINT32:
        put(static_cast<std::uint32_t>(small));
        break;
      case TP::INT64:
        put(static_cast<std::int64_t>(small));
        break;
      case TP::UINT64:
        put(static_cast<std::uint64_t>(small));
        break;
      case TP::BOOL:
        put(static_cast<std::uint8_t>(i % 2));
        break;
      case TP::STRING:
        t.strings.push_back("s" + std::to_string(small));
        break;
      default:
        throw std::runtime_error("cannot generate data of type " + onnx_type_name(elem_type));
    }
  }
  return t;
}

}  // namespace convfail::repro
