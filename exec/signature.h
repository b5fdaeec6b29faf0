// Normalised error signatures: the same failure in two models, two scripts or two runs gives the
// same text, so verdicts can be grouped by it. This is the only normaliser: every signature stored
// in repro_runs (model runs and script runs) comes from here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace convfail::exec {

// The longest signature, in bytes (cut on a UTF-8 character boundary).
constexpr std::size_t kMaxSignatureBytes = 240;

// First line only; absolute paths -> <path>, hex addresses -> <addr>, quoted values (node names,
// temp names, values) -> '<name>' except qualified operator names such as 'aten::fft_fft', which
// say what failed; numbers not glued to a letter -> N (add_12 -> add_N, but conv2d and int64
// stay); spaces collapsed; lower case. E.g. "[ONNXRuntimeError] : 10 : INVALID_GRAPH : Load model
// from /tmp/x/m.onnx failed: ... node 'conv_12' ..." -> "[onnxruntimeerror] : n : invalid_graph :
// load model from <path> failed: ... node '<name>' ...".
std::string error_signature(const std::string& error_text);

// A Python exception's signature: error_signature("Type: message"), the traceback's last line.
std::string exception_signature(const std::string& type, const std::string& message);

// ONNX Runtime's "Could not find an implementation for Relu(14) node with name '/Relu'": no kernel
// for that operator at that opset version for the node's types. The message does not name the
// types; reproduce_model finds them in the model (the checker child's shape inference).
struct MissingKernel {
  std::string op;    // Relu (a qualified domain name stays: com.microsoft.FusedConv)
  int opset = 0;     // 14: the operator's version ONNX Runtime looked a kernel up for
  std::string node;  // /Relu: the node's name in the model (not part of the signature)
  // The element types ONNX Runtime matched kernels on ("int16"; two for an operator with two
  // type constraints, "uint8", "int8"); empty when not known.
  std::vector<std::string> types;
};

// The missing kernel an ONNX Runtime error names, else nullopt.
std::optional<MissingKernel> parse_missing_kernel(const std::string& error_text);

// The group key of a missing kernel, said in full: "onnxruntime: no kernel for Relu(14) on
// int16" ("on uint8, int8" for two types, "on an unknown type" when none is known). Unlike
// error_signature it keeps case and numbers: the opset and the type are what the group is.
std::string missing_kernel_signature(const MissingKernel& kernel);

// The kernel of a missing_kernel_signature, else nullopt (node empty).
std::optional<MissingKernel> parse_missing_kernel_signature(const std::string& signature);

}  // namespace convfail::exec
