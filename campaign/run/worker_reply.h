// The campaign worker's reply to one model request, validated. The worker is a sandboxed child
// that runs untrusted programs (script: sources): its reply is data to check, never to trust. An
// outcome the worker may not give (only convfail decides ort_failure, mismatch and success), a
// number that is not finite or out of range, graph edges outside the node count, or a reply that
// is not the protocol's shape make the reply invalid, with the reason; every text is cut and made
// terminal-safe here, before anything prints or stores it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace convfail::campaign {

struct WorkerReply {
  bool ok = false;        // "ok": true (false: the worker says the request failed, see error)
  bool exported = false;  // outcome null: exported, ready for ONNX Runtime
  std::string outcome;    // "" when exported, else invalid | conversion_failure
  std::string stage;      // build | eager | export | inputs | exported (cut, terminal-safe)
  std::string error;      // as the worker said it, cut to 2,000 bytes, terminal-safe
  std::string raw_error;  // the same, not escaped (for the signature, which normalises it)
  std::string error_type;
  int nodes = -1;                                       // -1: not said
  nlohmann::json ops = nlohmann::json::array();         // strings, at most kMaxOps
  nlohmann::json edges = nlohmann::json::array();       // [[a, b], ...], 0 <= a, b < ops.size()
  nlohmann::json durations = nlohmann::json::object();  // finite, >= 0 seconds
  std::vector<std::string> dtypes;  // the types a synthetic model uses: of all_dtypes(), no repeat
  std::string main_dtype;           // a synthetic model's main type: of all_dtypes(), or ""
};

inline constexpr std::size_t kMaxOps = 100000;

// The reply of a "model" request; nullopt with *why (one line, terminal-safe) when it is not one
// the worker may give.
std::optional<WorkerReply> parse_worker_reply(const std::string& line, std::string* why);

// The values a stored model row shares with a reply, given under a reply's keys ("nodes",
// "durations", "ops", "edges", "dtypes"; absent or null: not said), checked and cut by the same
// rules: `test merge` checks a shard's rows with it. nullopt with *why when one is not what a
// worker may say.
std::optional<WorkerReply> parse_reply_values(const nlohmann::json& values, std::string* why);

}  // namespace convfail::campaign
