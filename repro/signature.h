// Normalised error signatures: the same failure in two models or runs gives the same text, so
// verdicts can be grouped (paths, numbers, addresses, node names and quoted values removed).
#pragma once

#include <string>

namespace convfail::repro {

// E.g. "[ONNXRuntimeError] : 10 : INVALID_GRAPH : Load model from /tmp/x/m.onnx failed: ...
// node 'conv_12' ..." -> "[onnxruntimeerror] : N : invalid_graph : load model from <path> failed:
// ... node '<name>' ...". At most 240 characters, first line only.
std::string error_signature(const std::string& error_text);

}  // namespace convfail::repro
