// The element types ONNX Runtime looks a node's kernel up by: for a missing kernel ("Could not
// find an implementation for Relu(14) node with name '/Relu'", which names no type) the group key
// needs them (exec::missing_kernel_signature). Read from a model after shape inference, in the
// checker child (libonnx is not hardened against hostile models).
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace convfail::repro {

// The node named `node_name` in the main graph of `inferred` (a model after shape inference):
// the element type of each of its type constraints that allows more than one type, in the order
// of its inputs then outputs ("int16" for Relu; "float32", "int16" for a Cast from float to
// int16; Where's bool condition, allowed bool only, does not count), as the runner names them
// (exec::ort_type_name: float32, int16, bool). Without a schema: its first input's type. Empty
// when the node or its types are not found, or `node_name` is empty (a node ONNX Runtime made).
std::vector<std::string> kernel_types(const onnx::ModelProto& inferred,
                                      const std::string& node_name);

}  // namespace convfail::repro
