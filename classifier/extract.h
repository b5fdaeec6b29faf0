// Facts stored beside the labels: the final exception's type and message, operator names (ONNX
// operators validated against libonnx's schema registry, aten:: names, TensorFlow op names as
// tf2onnx prints them), the opset version and framework versions stated in the report.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "classifier/segment.h"

namespace convfail::classifier {

// (kind, value) pairs, without duplicates, in a stable order. Kinds: error_type, error_message,
// onnx_op, aten_op, tf_op, opset, version:<torch|tensorflow|onnx|onnxruntime|tf2onnx>.
using Extractions = std::vector<std::pair<std::string, std::string>>;

Extractions extract_facts(const Segments& segments);

// True when libonnx knows `name` as an operator of the default ONNX domain.
bool is_onnx_operator(const std::string& name);

}  // namespace convfail::classifier
