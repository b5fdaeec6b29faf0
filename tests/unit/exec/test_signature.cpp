// The one error-signature normaliser (repro/signature.h), reached from the model path and from
// the script path.
#include <doctest/doctest.h>

#include <string>

#include "exec/signature.h"
#include "repro/scripts/script_verdict.h"

using namespace convfail::repro;
using namespace convfail::exec;
using namespace convfail;

namespace {

// A script whose torch.onnx.export raised `type: message`, as the harness reports it.
RunVerdict script_export_crash(const std::string& type, const std::string& message) {
  ScriptRun run;
  run.sandbox.kind = exec::ExitKind::kExited;
  run.have_result = true;
  run.phase = "done";
  run.export_calls = 1;
  run.exception = HarnessException{type, message, "export", "", "", 0, "", ""};
  return decide_script_verdict(run, [](const HarnessExport&) { return RunVerdict{}; });
}

}  // namespace

TEST_CASE("signature: the same error text gives the same signature on the model and script paths") {
  const std::string type = "RuntimeError";
  const std::string message =
      "Failed to load /root/work/run-8812/model_12.onnx at 0x7ffe12ab: node 'Conv_3' "
      "(op_type:Conv) has 2 inputs, expected 3; see \"/tmp/convfail-x/log.txt\"\n"
      "  second line with /etc/passwd";
  // The model path signs the runner's error text; the script path the exception's type and
  // message, which the traceback prints as "Type: message".
  std::string model_path = exec::error_signature(type + ": " + message);
  RunVerdict v = script_export_crash(type, message);
  REQUIRE(v.verdict == "crash_reproduced");
  CHECK(v.signature == model_path);
  CHECK(model_path ==
        "runtimeerror: failed to load <path> at <addr>: node '<name>' (op_type:conv) has n "
        "inputs, expected n; see '<name>'");
  // Another run of the same failure (other paths, names, counts) signs the same.
  CHECK(script_export_crash(type,
                            "Failed to load /home/u/m.onnx at 0x1: node 'Conv_77' (op_type:Conv) "
                            "has 4 inputs, expected 5; see \"C:\\tmp\\y.txt\"")
            .signature == model_path);
  CHECK(exec::exception_signature(type, message) == model_path);
  CHECK(exec::exception_signature("", "boom 3") == exec::error_signature("boom 3"));
}

TEST_CASE("signature: absolute host paths are never kept") {
  for (const std::string& text :
       {std::string("PermissionError: [Errno 13] Permission denied: '/etc/shadow'"),
        std::string("cannot open /root/x for reading"), std::string("open(/root/x) failed"),
        std::string("File \"/home/alice/.cache/torch/hub/x.py\", line 3, in <module>"),
        std::string("[/etc/shadow] unreadable"), std::string("path=/root/secret/key.pem"),
        std::string("saved in ~/models/private/m.onnx"),
        std::string("Load model from C:\\Users\\alice\\m.onnx failed"),
        std::string("no such file: /home/jos\xe9/m.onnx (latin-1 name)")}) {
    CAPTURE(text);
    std::string sig = exec::error_signature(text);
    // Replaced by <path>, or by '<name>' when the path was quoted.
    CHECK((sig.find("<path>") != std::string::npos || sig.find("'<name>'") != std::string::npos));
    for (const char* secret : {"/etc", "shadow", "/root", "alice", "secret", "private", "jos"})
      CHECK(sig.find(secret) == std::string::npos);
  }
  // Relative paths and slashes inside words are no host paths.
  CHECK(exec::error_signature("see torch/onnx/utils.py for input/output names") ==
        "see torch/onnx/utils.py for input/output names");
}

TEST_CASE("signature: what identifies the failure stays, what varies between runs goes") {
  // Operator names say what failed, even quoted; node names, numbers and addresses vary.
  CHECK(exec::error_signature(
            "Exporting the operator 'aten::fft_fft' to ONNX opset version 13 is not "
            "supported") ==
        "exporting the operator 'aten::fft_fft' to onnx opset version n is not supported");
  CHECK(exec::error_signature(
            "Conv2d with int64 weights at add_12, shape [1, 3, 224, 224], eps -1e-05, "
            "version 1.13.1") ==
        "conv2d with int64 weights at add_n, shape [n, n, n, n], eps n, version n");
  // An apostrophe is no quote.
  CHECK(exec::error_signature("Tensor doesn't have 'weight_7' and can't be 'x'") ==
        "tensor doesn't have '<name>' and can't be '<name>'");
  CHECK(exec::error_signature("  a \t  b  ") == "a b");
  CHECK(exec::error_signature("") == "");
}

TEST_CASE("signature: bounded in length, cut on a character boundary") {
  std::string long_line(10000, 'x');
  CHECK(exec::error_signature(long_line).size() == exec::kMaxSignatureBytes);
  CHECK(exec::error_signature("RuntimeError: " + long_line) ==
        exec::exception_signature("RuntimeError", long_line));
  // 1 + 2k bytes of "a" then e-acute: a cut at exec::kMaxSignatureBytes would split a character.
  std::string accents = "a";
  for (int i = 0; i < 500; ++i) accents += "\xc3\xa9";
  std::string sig = exec::error_signature(accents);
  CHECK(sig.size() == exec::kMaxSignatureBytes - 1);
  CHECK(static_cast<unsigned char>(sig.back()) == 0xa9);
  CHECK(exec::error_signature("short\n" + long_line) == "short");  // first line only
}

TEST_CASE("signature: a quote left open at the end of the first line does not split a group") {
  // The message goes on on the next line: the value after the open quote varies per model.
  std::string a = exec::error_signature("RuntimeError: cannot infer the type of 'v12\n  more'");
  std::string b = exec::error_signature("RuntimeError: cannot infer the type of 'output_3\nother'");
  CHECK(a == b);
  CHECK(a == "runtimeerror: cannot infer the type of '<name>");
  // Closed quotes and apostrophes are as before.
  CHECK(exec::error_signature("can't load 'a' and \"b\"") == "can't load '<name>' and '<name>'");
  CHECK(exec::error_signature("op 'aten::fft_fft") == "op 'aten::fft_fft");
}

TEST_CASE("signature: model-specific names in failures of the campaign do not split a group") {
  // torch.onnx's "[Caused by the value 'v49 defined in (%v49 : ... onnx::Relu(%48) ...": the
  // value holds an operator name, but it is a value, not an operator.
  auto caused = [](const std::string& v, const std::string& op) {
    return exec::error_signature(
        "SymbolicValueError: Unsupported: ONNX export of instance_norm for unknown channel size. "
        "[Caused by the value '" +
        v + " defined in (%" + v + " : Float(*, *, strides=[4, 1]) = onnx::" + op +
        "(%48), scope: m\n)' (type 'exec::Tensor')");
  };
  CHECK(caused("v49", "Relu") == caused("v95", "Softmax"));
  CHECK(caused("v49", "Relu").find("onnx::") == std::string::npos);
  // The same with a double-quoted attribute inside the open value (onnx::Pad[mode="constant"]):
  // found by a 3,544-model campaign, where it split one defect into 12 groups.
  auto padded = [](const std::string& v, const std::string& strides) {
    return exec::error_signature(
        "SymbolicValueError: Unsupported: ONNX export of instance_norm for unknown channel size.  "
        "[Caused by the value '" +
        v + " defined in (%" + v + " : Float(*, *, *, strides=[" + strides +
        "], requires_grad=0, device=cpu) = onnx::Pad[mode=\"constant\"](%58, %84, %29), scope: "
        "convfail_synth.Model:: # program.py:37:0\n)' (type 'exec::Tensor') in the TorchScript "
        "graph.");
  };
  CHECK(padded("v11", "6, 3, 1") == padded("v4", "120, 20, 5, 1"));
  CHECK(padded("v11", "6, 3, 1") ==
        "symbolicvalueerror: unsupported: onnx export of instance_norm for unknown channel size. "
        "[caused by the value '<name>");
  // ONNX Runtime names the model's own tensors and nodes; the operator type stays.
  std::string a = exec::error_signature(
      "This is an invalid model. Type Error: Type 'tensor(uint8)' of input parameter (input_1) "
      "of operator (LayerNormalization) in node (LayerNormalization_3) is invalid.");
  std::string b = exec::error_signature(
      "This is an invalid model. Type Error: Type 'tensor(uint8)' of input parameter "
      "(/Relu_output_0) of operator (LayerNormalization) in node (/ln/LayerNormalization) is "
      "invalid.");
  CHECK(a == b);
  CHECK(a.find("operator (layernormalization)") != std::string::npos);
  CHECK(exec::error_signature("Node (MatMulBnFusion_Gemm) Op (Gemm) [ShapeInferenceError] rank") ==
        "node (<name>) op (gemm) [shapeinferenceerror] rank");
  // Qualified operator names are still kept.
  CHECK(exec::error_signature("Exporting the operator 'aten::sinh' to ONNX") ==
        "exporting the operator 'aten::sinh' to onnx");
}

TEST_CASE("signature: ONNX Runtime's missing kernel is one group per operator, version and type") {
  auto k = parse_missing_kernel(
      "[ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for Relu(14) "
      "node with name '/Relu'");
  REQUIRE(k);
  CHECK(k->op == "Relu");
  CHECK(k->opset == 14);
  CHECK(k->node == "/Relu");
  CHECK(k->types.empty());
  k->types = {"int16"};
  CHECK(missing_kernel_signature(*k) == "onnxruntime: no kernel for Relu(14) on int16");
  auto back = parse_missing_kernel_signature(missing_kernel_signature(*k));
  REQUIRE(back);
  CHECK(back->op == "Relu");
  CHECK(back->opset == 14);
  CHECK(back->types == std::vector<std::string>{"int16"});
  // Two type constraints, and none known.
  MissingKernel cast{"Cast", 13, "", {"float32", "int16"}};
  CHECK(missing_kernel_signature(cast) == "onnxruntime: no kernel for Cast(13) on float32, int16");
  CHECK(parse_missing_kernel_signature(missing_kernel_signature(cast))->types.size() == 2);
  MissingKernel unknown{"Where", 16, "", {}};
  CHECK(missing_kernel_signature(unknown) ==
        "onnxruntime: no kernel for Where(16) on an unknown type");
  CHECK(parse_missing_kernel_signature(missing_kernel_signature(unknown))->types.empty());
  // Anything else is no missing kernel; error_signature alone would lose the version.
  CHECK_FALSE(parse_missing_kernel("Type Error: Type (tensor(int16)) of input parameter"));
  CHECK_FALSE(parse_missing_kernel_signature(
      error_signature("Could not find an implementation for Relu(14) node with name '/Relu'")));
  CHECK(error_signature("Could not find an implementation for Relu(14) node with name '/Relu'")
            .find("14") == std::string::npos);
}
