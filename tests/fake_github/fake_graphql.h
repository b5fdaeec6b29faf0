// The fake server's GraphQL: a small parser for the documents convfail sends (operations,
// variables with defaults, fields with aliases and arguments, inline fragments, named fragments,
// @include/@skip), GitHub's documented cost formula and node limit, and an executor that
// projects resolved JSON objects onto the selection sets.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace convfail::fake {

struct GqlError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Selection {
  enum Kind { kField, kInline, kSpread } kind = kField;
  std::string alias, name;  // field: response key and field name; spread: fragment name
  std::string type;         // inline fragment's type condition
  nlohmann::json args = nlohmann::json::object();  // variables substituted
  std::vector<Selection> sub;
};

struct GqlDocument {
  std::string operation_name;
  std::vector<Selection> selections;  // of the (first) operation
  std::map<std::string, std::pair<std::string, std::vector<Selection>>> fragments;
};

// Parses `text` with `variables` substituted; throws GqlError with GitHub-like messages.
GqlDocument parse_graphql(const std::string& text, const nlohmann::json& variables);

struct GqlCost {
  std::int64_t requests = 1;  // GitHub: one per connection per parent node
  std::int64_t nodes = 0;     // possible nodes (the 500,000 limit)
  std::int64_t cost() const;  // max(1, round(requests / 100))
};
// GitHub's formula (docs: "Calculating a rate limit score before running the call");
// throws GqlError for a connection without first/last or with first over 100.
GqlCost graphql_cost(const GqlDocument& doc);

// Resolves field `sel` of `object` (its "__typename" tells the type): returns the raw value (for
// object or list fields, JSON objects the executor descends into). Throws GqlError.
using GqlResolver =
    std::function<nlohmann::json(const nlohmann::json& object, const Selection& sel)>;

// Executes `sels` against `object` (projecting onto the selections; fragments by __typename,
// `abstract` type names match any object).
nlohmann::json graphql_execute(const GqlDocument& doc, const nlohmann::json& object,
                               const std::vector<Selection>& sels, const GqlResolver& resolve);

}  // namespace convfail::fake
