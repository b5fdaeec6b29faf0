#include "campaign/run/worker_reply.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "campaign/outcomes.h"
#include "campaign/run/plan.h"
#include "core/error.h"
#include "core/issue_schema.h"
#include "core/text.h"

using nlohmann::json;

namespace convfail::campaign {
namespace {

constexpr std::size_t kMaxText = 2000;
constexpr std::size_t kMaxOpName = 100;
constexpr int kMaxNodes = 10000000;

std::string safe(const std::string& s, std::size_t max) {
  return terminal_safe(truncate_utf8(s, max));
}

// The string at `key` (cut), "" when absent or null; false when present with another type.
bool text_field(const json& j, const char* key, std::size_t max, std::string* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_string()) return false;
  *out = truncate_utf8(it->get<std::string>(), max);
  return true;
}

bool fail(std::string* why, const std::string& text) {
  if (why) *why = safe(text, 300);
  return false;
}

bool read_graph(const json& j, WorkerReply& r, std::string* why) {
  if (j.contains("ops") && !j["ops"].is_null()) {
    if (!j["ops"].is_array() || j["ops"].size() > kMaxOps)
      return fail(why, "ops is not a list of at most " + std::to_string(kMaxOps) + " names");
    for (const auto& op : j["ops"]) {
      if (!op.is_string()) return fail(why, "an operator name is not a string");
      r.ops.push_back(safe(op.get<std::string>(), kMaxOpName));
    }
  }
  if (j.contains("edges") && !j["edges"].is_null()) {
    const auto n = static_cast<std::int64_t>(r.ops.size());
    if (!j["edges"].is_array() || j["edges"].size() > 16 * kMaxOps)
      return fail(why, "edges is not a list");
    for (const auto& e : j["edges"]) {
      if (!e.is_array() || e.size() != 2 || !e[0].is_number_integer() || !e[1].is_number_integer())
        return fail(why, "an edge is not a pair of node indices");
      auto a = e[0].get<std::int64_t>(), b = e[1].get<std::int64_t>();
      if (a < 0 || b < 0 || a >= n || b >= n)
        return fail(why, "edge [" + std::to_string(a) + ", " + std::to_string(b) +
                             "] outside the graph's " + std::to_string(n) + " nodes");
      r.edges.push_back({a, b});
    }
  }
  return true;
}

bool read_numbers(const json& j, WorkerReply& r, std::string* why) {
  if (j.contains("nodes") && !j["nodes"].is_null()) {
    if (!j["nodes"].is_number_integer()) return fail(why, "nodes is not an integer");
    auto n = j["nodes"].get<std::int64_t>();
    if (n < 0 || n > kMaxNodes) return fail(why, "nodes " + std::to_string(n) + " out of range");
    r.nodes = static_cast<int>(n);
  }
  if (j.contains("durations") && !j["durations"].is_null()) {
    if (!j["durations"].is_object() || j["durations"].size() > 32)
      return fail(why, "durations is not an object of at most 32 steps");
    for (const auto& [k, v] : j["durations"].items()) {
      if (!v.is_number()) return fail(why, "duration of " + k + " is not a number");
      double d = v.get<double>();
      if (!std::isfinite(d) || d < 0 || d > 1e7)
        return fail(why, "duration of " + k + " is not a finite number of seconds");
      r.durations[safe(k, 40)] = d;
    }
  }
  return true;
}

bool read_dtypes(const json& j, WorkerReply& r, std::string* why) {
  if (!j.contains("dtypes") || j["dtypes"].is_null()) return true;
  if (!j["dtypes"].is_array() || j["dtypes"].size() > all_dtypes().size())
    return fail(
        why, "dtypes is not a list of at most " + std::to_string(all_dtypes().size()) + " types");
  for (const auto& d : j["dtypes"]) {
    if (!d.is_string()) return fail(why, "a dtype is not a string");
    const std::string name = d.get<std::string>();
    if (std::find(all_dtypes().begin(), all_dtypes().end(), name) == all_dtypes().end())
      return fail(why, "dtype '" + truncate_utf8(name, 40) + "' is not one of the nine");
    if (std::find(r.dtypes.begin(), r.dtypes.end(), name) != r.dtypes.end())
      return fail(why, "dtype " + name + " said twice");
    r.dtypes.push_back(name);
  }
  return true;
}

bool read_main_dtype(const json& j, WorkerReply& r, std::string* why) {
  if (!j.contains("main_dtype") || j["main_dtype"].is_null()) return true;
  if (!j["main_dtype"].is_string()) return fail(why, "main_dtype is not a string");
  const std::string main = j["main_dtype"].get<std::string>();
  if (std::find(all_dtypes().begin(), all_dtypes().end(), main) == all_dtypes().end())
    return fail(why, "main_dtype '" + truncate_utf8(main, 40) + "' is not one of the nine");
  r.main_dtype = main;
  return true;
}

}  // namespace

std::optional<WorkerReply> parse_worker_reply(const std::string& line, std::string* why) {
  if (json_nesting_depth(line) > kMaxJsonDepth) {
    fail(why, "reply nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    return std::nullopt;
  }
  json j = json::parse(line, nullptr, false);
  if (!j.is_object()) {
    fail(why, "reply is not a JSON object");
    return std::nullopt;
  }
  WorkerReply r;
  if (!j.contains("ok") || !j["ok"].is_boolean()) {
    fail(why, "reply has no boolean ok");
    return std::nullopt;
  }
  r.ok = j["ok"].get<bool>();
  std::string stage, type;
  if (!text_field(j, "error", kMaxText, &r.raw_error) || !text_field(j, "stage", 40, &stage) ||
      !text_field(j, "error_type", 60, &type)) {
    fail(why, "error, stage or error_type is not a string");
    return std::nullopt;
  }
  r.error = terminal_safe(r.raw_error);
  r.stage = terminal_safe(stage);
  r.error_type = terminal_safe(type);
  if (!r.ok) return r;
  auto out = j.find("outcome");
  if (out == j.end() || out->is_null()) {
    r.exported = true;
  } else if (!out->is_string()) {
    fail(why, "outcome is not a string");
    return std::nullopt;
  } else {
    r.outcome = out->get<std::string>();
    // The worker decides only what happens before ONNX Runtime: a model it could not build or run
    // (invalid) and a failed export (conversion_failure).
    if (r.outcome != kInvalid && r.outcome != kConversionFailure) {
      fail(why, "outcome '" + truncate_utf8(r.outcome, 40) + "' is not one the worker may give");
      return std::nullopt;
    }
  }
  if (!read_numbers(j, r, why) || !read_graph(j, r, why) || !read_dtypes(j, r, why) ||
      !read_main_dtype(j, r, why))
    return std::nullopt;
  return r;
}

std::optional<WorkerReply> parse_reply_values(const json& values, std::string* why) {
  if (!values.is_object()) {
    fail(why, "values are not a JSON object");
    return std::nullopt;
  }
  WorkerReply r;
  r.ok = true;
  if (!read_numbers(values, r, why) || !read_graph(values, r, why) || !read_dtypes(values, r, why))
    return std::nullopt;
  return r;
}

}  // namespace convfail::campaign
