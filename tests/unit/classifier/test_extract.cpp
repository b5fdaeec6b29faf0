#include <doctest/doctest.h>

#include <algorithm>

#include "classifier/extract.h"

using namespace convfail;
using namespace convfail::classifier;

namespace {
Extractions facts_of(const std::string& title, const std::string& body) {
  classifier::IssueText issue;
  issue.title = title;
  issue.body = body;
  return classifier::extract_facts(classifier::segment_issue(issue));
}
bool has(const Extractions& e, const std::string& kind, const std::string& value) {
  return std::find(e.begin(), e.end(), std::make_pair(kind, value)) != e.end();
}
std::vector<std::string> values(const Extractions& e, const std::string& kind) {
  std::vector<std::string> out;
  for (const auto& [k, v] : e)
    if (k == kind) out.push_back(v);
  return out;
}
}  // namespace

TEST_CASE("extract: error type and message of the final exception") {
  auto e = facts_of("t",
                    "Traceback (most recent call last):\n  File \"x.py\", line 1, in f\n"
                    "ValueError: first one\n\nTraceback (most recent call last):\n"
                    "  File \"y.py\", line 2, in g\nmylib.errors.ExportError: the last one");
  CHECK(values(e, "error_type") == std::vector<std::string>{"mylib.errors.ExportError"});
  CHECK(values(e, "error_message") == std::vector<std::string>{"the last one"});
}

TEST_CASE("extract: error line without a traceback") {
  auto e = facts_of("t", "I get\nRuntimeError: something broke\nwhen running");
  CHECK(values(e, "error_type") == std::vector<std::string>{"RuntimeError"});
  CHECK(values(e, "error_message") == std::vector<std::string>{"something broke"});
}

TEST_CASE("extract: ONNX operators are validated against libonnx's registry") {
  CHECK(classifier::is_onnx_operator("Conv"));
  CHECK_FALSE(classifier::is_onnx_operator("Convolution2DTransposeX"));
  auto e = facts_of("Resize op gives wrong output",
                    "The `NonMaxSuppression` node and onnx::Gather differ; operator Frobnicate "
                    "and 'Banana' are not operators. When and Then are words.");
  auto ops = values(e, "onnx_op");
  CHECK(has(e, "onnx_op", "Resize"));
  CHECK(has(e, "onnx_op", "NonMaxSuppression"));
  CHECK(has(e, "onnx_op", "Gather"));
  CHECK_FALSE(has(e, "onnx_op", "Frobnicate"));
  CHECK_FALSE(has(e, "onnx_op", "Banana"));
  CHECK_FALSE(has(e, "onnx_op", "When"));
}

TEST_CASE("extract: aten:: names and TensorFlow op names as tf2onnx prints them") {
  auto e = facts_of("t",
                    "Exporting the operator aten::grid_sampler to ONNX opset version 11 is not "
                    "supported.\nERROR - Tensorflow op [model/layer/FooBar: FooBar] is not "
                    "supported\nERROR - Unsupported ops: Counter({'FooBar': 2, 'BazQux': 1})\n"
                    "No Op registered for Frob with these attrs");
  CHECK(has(e, "aten_op", "aten::grid_sampler"));
  CHECK(values(e, "tf_op") == std::vector<std::string>{"FooBar", "Frob", "BazQux"});
  CHECK(has(e, "opset", "11"));
}

TEST_CASE("extract: opset and framework versions") {
  auto e = facts_of("t",
                    "torch.onnx.export(m, x, 'm.onnx', opset_version=13)\n"
                    "python -m tf2onnx.convert --opset 9\n"
                    "- PyTorch Version (e.g., 1.0): 1.13.1\n"
                    "tensorflow==2.4.0, onnxruntime 1.8.1, tf2onnx: 1.9.2, onnx version 1.10.0");
  CHECK(has(e, "opset", "13"));
  CHECK(has(e, "opset", "9"));
  CHECK(has(e, "version:torch", "1.13.1"));
  CHECK(has(e, "version:tensorflow", "2.4.0"));
  CHECK(has(e, "version:onnxruntime", "1.8.1"));
  CHECK(has(e, "version:tf2onnx", "1.9.2"));
  CHECK(has(e, "version:onnx", "1.10.0"));
  CHECK(values(e, "version:onnx").size() == 1);
}
