// Null-tolerant accessors for GitHub JSON, where any field may be missing or null.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace convfail {

using Json = nlohmann::json;

// The string at key, or nullopt when missing, null or not a string.
inline std::optional<std::string> opt_string(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

inline std::optional<std::int64_t> opt_int(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

// JSON text of `j` for output (indent < 0: one line). Strings that are not valid UTF-8 (text
// stored before it was validated, or by another tool) are written with U+FFFD in place of the
// bad bytes instead of throwing type_error.316: printing never fails on stored text.
inline std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// j[key][sub] as a string, e.g. user.login.
inline std::optional<std::string> opt_nested_string(const Json& j, const char* key,
                                                    const char* sub) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_object()) return std::nullopt;
  return opt_string(*it, sub);
}

}  // namespace convfail
