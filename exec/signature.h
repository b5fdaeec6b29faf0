// Normalised error signatures: the same failure in two models, two scripts or two runs gives the
// same text, so verdicts can be grouped by it. This is the only normaliser: every signature stored
// in repro_runs (model runs and script runs) comes from here.
#pragma once

#include <cstddef>
#include <string>

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

}  // namespace convfail::exec
