#include "exec/signature.h"

#include <re2/re2.h>

#include "core/text.h"

namespace convfail::exec {
namespace {

// A qualified operator name ('aten::fft_fft', 'onnx::Gather_N') is kept in a signature; any other
// quoted text is a value ('v49 defined in (%v49 : ... onnx::Relu(...' is a value, not an op).
std::string quoted_value(const std::string& value) {
  static const RE2 kOperator(R"([A-Za-z_][A-Za-z0-9_.]*::[A-Za-z0-9_.]+)", RE2::Latin1);
  return RE2::FullMatch(value, kOperator) ? value : std::string("<name>");
}

// Replaces every quoted value ('x' or "x", the opening quote not glued to a word, so "can't" is no
// quote) by '<name>', keeping qualified operator names ('aten::fft_fft', 'onnx::Gather_N'). A
// quote left open at the end of the line is a value to the end, whatever it holds: torch's
// "[Caused by the value 'v11 defined in (%v11 : Float(...) = onnx::Pad[mode="constant"]..." goes on
// on the next line, and the "constant" inside it must not be taken for a value of its own, or
// one failure would split into a group per model.
std::string replace_quoted(const std::string& s) {
  static const RE2 kQuoted(R"((?:^|[^A-Za-z0-9])('[^'\n]*(?:'|$)|"[^"\n]*(?:"|$)))", RE2::Latin1);
  std::string out;
  re2::StringPiece input(s), quoted;
  std::size_t done = 0;
  while (done < s.size() && RE2::PartialMatch(input.substr(done), kQuoted, &quoted)) {
    std::size_t begin = static_cast<std::size_t>(quoted.data() - s.data());
    std::size_t end = begin + quoted.size();
    bool closed = quoted.size() >= 2 && quoted[quoted.size() - 1] == quoted[0];
    std::string value(quoted.substr(1, quoted.size() - (closed ? 2 : 1)));
    out.append(s, done, begin - done);
    out += "'" + quoted_value(value) + (closed ? "'" : "");
    done = end;
  }
  if (done < s.size()) out.append(s, done, std::string::npos);
  return out;
}

}  // namespace

std::string error_signature(const std::string& error_text) {
  // Latin-1: the patterns are ASCII and every byte is a character, so paths with any bytes in
  // them (UTF-8 or not) are matched whole.
  std::string s = error_text.substr(0, error_text.find('\n'));
  // Absolute paths (POSIX, home-relative, Windows) never reach the database verbatim. A path
  // starts after a non-word character, so "input/output" is no path.
  static const RE2 kPosixPath(R"((^|[^A-Za-z0-9_/])~?/[^\s'"(),:;\[\]{}<>]+)", RE2::Latin1);
  static const RE2 kWindowsPath(R"((^|[^A-Za-z0-9_])[A-Za-z]:\\[^\s'"(),;]*)", RE2::Latin1);
  static const RE2 kHex(R"(0[xX][0-9a-fA-F]+)", RE2::Latin1);
  // Integers, decimals, exponents and dotted versions; not the digits of conv2d or int64.
  static const RE2 kNumber(R"((^|[^A-Za-z0-9.])-?\d+(?:\.\d+)*(?:[eE][-+]?\d+)?)", RE2::Latin1);
  static const RE2 kSpaces(R"(\s+)", RE2::Latin1);
  RE2::GlobalReplace(&s, kPosixPath, R"(\1<path>)");
  RE2::GlobalReplace(&s, kWindowsPath, R"(\1<path>)");
  RE2::GlobalReplace(&s, kHex, "<addr>");
  s = replace_quoted(s);
  // ONNX Runtime names the model's own nodes and tensors in parentheses ("input parameter
  // (input_1)", "in node (/ln/LayerNormalization)", "Node (MatMulBnFusion_Gemm) Op (Gemm)"):
  // those names differ per model, the operator type after "Op" or "operator" does not.
  static const RE2 kNodeName(R"((?i)((?:input|output) parameter|node) \([^()]*\))", RE2::Latin1);
  RE2::GlobalReplace(&s, kNodeName, R"(\1 (<name>))");
  RE2::GlobalReplace(&s, kNumber, R"(\1N)");
  RE2::GlobalReplace(&s, kSpaces, " ");
  s = lower(s);
  std::size_t b = s.find_first_not_of(' ');
  s = b == std::string::npos ? std::string() : s.substr(b, s.find_last_not_of(' ') - b + 1);
  return truncate_utf8(s, kMaxSignatureBytes);
}

std::string exception_signature(const std::string& type, const std::string& message) {
  return error_signature(type.empty() ? message : type + ": " + message);
}

std::optional<MissingKernel> parse_missing_kernel(const std::string& error_text) {
  static const RE2 kMissing(
      R"(Could not find an implementation for ([A-Za-z_][A-Za-z0-9_.:]{0,99})\((\d{1,4})\) node )"
      R"(with name '([^'\n]{0,1000})')",
      RE2::Latin1);
  MissingKernel k;
  if (!RE2::PartialMatch(error_text, kMissing, &k.op, &k.opset, &k.node)) return std::nullopt;
  return k;
}

std::string missing_kernel_signature(const MissingKernel& kernel) {
  std::string types;
  for (const auto& t : kernel.types) types += (types.empty() ? "" : ", ") + t;
  return truncate_utf8("onnxruntime: no kernel for " + kernel.op + "(" +
                           std::to_string(kernel.opset) + ") on " +
                           (types.empty() ? "an unknown type" : types),
                       kMaxSignatureBytes);
}

std::optional<MissingKernel> parse_missing_kernel_signature(const std::string& signature) {
  static const RE2 kSignature(
      R"(onnxruntime: no kernel for ([A-Za-z_][A-Za-z0-9_.:]*)\((\d{1,4})\) on (.+))", RE2::Latin1);
  MissingKernel k;
  std::string types;
  if (!RE2::FullMatch(signature, kSignature, &k.op, &k.opset, &types)) return std::nullopt;
  if (types == "an unknown type") return k;
  std::size_t at = 0;
  while (at <= types.size()) {
    std::size_t comma = std::min(types.find(", ", at), types.size());
    k.types.push_back(types.substr(at, comma - at));
    at = comma + 2;
  }
  return k;
}

}  // namespace convfail::exec
