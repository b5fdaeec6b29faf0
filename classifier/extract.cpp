#include "classifier/extract.h"

#include <onnx/defs/schema.h>
#include <re2/re2.h>

#include <algorithm>
#include <set>

namespace convfail::classifier {

namespace {

class Collector {
 public:
  void add(const std::string& kind, std::string value) {
    while (!value.empty() && (value.back() == ' ' || value.back() == '.' || value.back() == ','))
      value.pop_back();
    if (value.empty() || value.size() > 300) return;
    if (seen_.insert({kind, value}).second) out_.emplace_back(kind, std::move(value));
  }
  Extractions take() { return std::move(out_); }

 private:
  std::set<std::pair<std::string, std::string>> seen_;
  Extractions out_;
};

std::string canonical_package(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), ::tolower);
  if (name == "pytorch") return "torch";
  if (name == "tf") return "tensorflow";
  if (name == "ort") return "onnxruntime";
  return name;
}

// The final exception: the error line of the last traceback, else the last line anywhere that
// looks like "SomethingError: message".
void extract_error(const Segments& s, Collector& c) {
  static const RE2 exception_line(
      R"(^\s*((?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Z][A-Za-z0-9_]*(?:Error|Exception|Fault|Failure|Interrupt|Exit))(?::\s*(.*))?$)");
  std::string type, message;
  auto lines = s.of(FieldKind::kErrorLine);
  if (!lines.empty()) {
    const std::string& line = lines.back()->text;
    if (!RE2::FullMatch(line, exception_line, &type, &message)) {
      auto colon = line.find(':');
      type = line.substr(0, colon);
      message = colon == std::string::npos ? "" : line.substr(colon + 1);
    }
  } else {
    static const RE2 any_line(
        R"((?m)^\s*((?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Z][A-Za-z0-9_]*(?:Error|Exception)):\s*(.+)$)");
    for (const Field& f : s.fields) {
      if (f.kind == FieldKind::kLabel || f.kind == FieldKind::kTitle) continue;
      re2::StringPiece in(f.text);
      std::string t, m;
      while (RE2::FindAndConsume(&in, any_line, &t, &m)) {
        type = t;
        message = m;
      }
    }
  }
  auto trim = [](std::string v) {
    auto a = v.find_first_not_of(" \t");
    auto b = v.find_last_not_of(" \t\r");
    return a == std::string::npos ? std::string() : v.substr(a, b - a + 1);
  };
  type = trim(type);
  message = trim(message);
  if (type.empty() || type.find(' ') != std::string::npos) return;
  c.add("error_type", type);
  c.add("error_message", message);
}

void extract_ops(const Segments& s, Collector& c) {
  static const RE2 aten(R"(\b(aten::[A-Za-z_][A-Za-z0-9_.]*))");
  // ONNX operator candidates: onnx::X, X in quotes or backticks, "X op/operator/node",
  // "op/operator/op_type X".
  static const RE2 onnx_ns(R"(\bonnx::([A-Z][A-Za-z0-9]*))");
  static const RE2 quoted(R"([`'"]([A-Z][A-Za-z0-9]+)[`'"])");
  static const RE2 before_op(R"(\b([A-Z][A-Za-z0-9]+)\s+(?:op|ops|operator|operators|node)\b)");
  static const RE2 after_op(
      R"((?i:\bop(?:erator|_type|type)?)\s*[:=]?\s*[`'"]?([A-Z][A-Za-z0-9]+)\b)");
  // tf2onnx: "Tensorflow op [name: Type] is not supported", "Unsupported ops: Counter({'X': 1"
  static const RE2 tf_op(R"((?i:tensorflow op) \[[^\]:]*:\s*([A-Za-z0-9_]+)\])");
  static const RE2 tf_counter(R"((?i:unsupported ops?): Counter\(\{([^}]*)\})");
  static const RE2 tf_counter_name(R"('([A-Za-z0-9_]+)')");
  static const RE2 tf_registered(R"(No Op registered for ([A-Za-z0-9_]+))");
  for (const Field& f : s.fields) {
    if (f.kind == FieldKind::kLabel) continue;
    std::string name;
    re2::StringPiece in(f.text);
    while (RE2::FindAndConsume(&in, aten, &name)) c.add("aten_op", name);
    for (const RE2* re : {&onnx_ns, &quoted, &before_op, &after_op}) {
      in = f.text;
      while (RE2::FindAndConsume(&in, *re, &name))
        if (is_onnx_operator(name)) c.add("onnx_op", name);
    }
    for (const RE2* re : {&tf_op, &tf_registered}) {
      in = f.text;
      while (RE2::FindAndConsume(&in, *re, &name)) c.add("tf_op", name);
    }
    in = f.text;
    std::string list;
    while (RE2::FindAndConsume(&in, tf_counter, &list)) {
      re2::StringPiece names(list);
      while (RE2::FindAndConsume(&names, tf_counter_name, &name)) c.add("tf_op", name);
    }
  }
}

void extract_versions(const Segments& s, Collector& c) {
  static const RE2 opset(
      R"((?i)\b(?:opset(?:[_ ]?version)?|target_opset)\s*(?:=|:|is|of)?\s*['"]?(\d{1,2})\b)");
  static const RE2 version(
      R"((?i)\b(pytorch|torch|tensorflow|tf|onnxruntime|ort|onnx|tf2onnx)(?:[ -]?gpu)?(?:\s+version)?\s*(?:\(e\.g\.,[^)]*\))?\s*(?:==|=|:|\s)\s*v?(\d+\.\d+(?:\.\d+)?(?:[.+a-z0-9]*)?))");
  for (const Field& f : s.fields) {
    if (f.kind == FieldKind::kLabel) continue;
    std::string a, b;
    re2::StringPiece in(f.text);
    while (RE2::FindAndConsume(&in, opset, &a)) c.add("opset", a);
    in = f.text;
    while (RE2::FindAndConsume(&in, version, &a, &b)) c.add("version:" + canonical_package(a), b);
  }
}

}  // namespace

bool is_onnx_operator(const std::string& name) {
  return onnx::OpSchemaRegistry::Schema(name, "") != nullptr;
}

Extractions extract_facts(const Segments& segments) {
  Collector c;
  extract_error(segments, c);
  extract_ops(segments, c);
  extract_versions(segments, c);
  return c.take();
}

}  // namespace convfail::classifier
