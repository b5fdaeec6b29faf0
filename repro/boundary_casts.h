// Running a model whose boundary has a type the ONNX Runtime release's Node binding cannot hold
// (float16 before the binding learnt it, bfloat16 in every release so far; the runner measures
// which: exec::OrtRunner::unheld_types). The model runs as a wrapped copy: each fed graph input of
// such a type becomes a float32 input followed by a Cast to its type, each such graph output a
// Cast to float32. Both conversions are exact (every float16 and bfloat16 value is a float32),
// so the runner feeds the float32 of the given values and narrows the outputs back before it
// compares them in the model's own type and tolerance. The copy is made here, on the model that
// reproduce_model has already parsed (plain protobuf editing: libonnx's checker and shape
// inference, which are not hardened, stay in the sandboxed checker child), and handed to the
// runner as bytes.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace convfail::repro {

// The name prefix of the Cast nodes a wrap adds: an ONNX Runtime error naming one is the
// harness's, not the model's.
inline constexpr const char* kBoundaryCastPrefix = "convfail_boundary_cast_";

// Graph inputs that are fed (not initializers), in graph order.
std::vector<const onnx::ValueInfoProto*> fed_inputs(const onnx::GraphProto& g);

struct BoundaryCasts {
  struct Value {
    int index = 0;        // among the fed inputs (inputs) or the graph outputs (outputs)
    std::string name;     // the model's own name
    std::string wrapped;  // the float32 name in the wrapped copy
    int elem_type = 0;    // the model's type (onnx::TensorProto_DataType)
  };
  std::vector<Value> inputs, outputs;
  bool empty() const { return inputs.empty() && outputs.empty(); }
  std::string types() const;  // "float16", "bfloat16" or "bfloat16 and float16"
  // What the model's row says: "float16 inputs x and outputs y fed and read as float32 through
  // Cast nodes at the model's boundary (ONNX Runtime 1.14.0's Node binding holds no float16),
  // compared as float16".
  std::string note(const std::string& ort_version) const;
};

// Which fed inputs and graph outputs of `model` have one of `elem_types`, and the names their
// float32 stand-ins would take (unused in the graph).
BoundaryCasts plan_boundary_casts(const onnx::ModelProto& model, const std::set<int>& elem_types);

// Wraps `model` in place as `casts` says (plan_boundary_casts of this model).
void wrap_boundary(onnx::ModelProto& model, const BoundaryCasts& casts);

}  // namespace convfail::repro
