// The issue schema (core/issue_schema.h) on any JSON text: the checks made before parsing
// (json_nesting_depth, check_string_lengths), then validate_issue, validate_comments and
// validate_timeline. Invariants: json_nesting_depth bounds the parsed value's depth, and an
// object the schema accepts is one the store takes (upsert_issue does not refuse it).
#include "core/error.h"
#include "core/issue_schema.h"
#include "core/issue_store.h"
#include "fuzz_check.h"
#include "fuzz_db.h"

using namespace convfail;

namespace {

// Depth of a parsed value as json_nesting_depth counts brackets: a scalar is 0, [] is 1.
std::size_t depth(const Json& j, std::size_t limit) {
  if (!j.is_structured()) return 0;
  std::size_t most = 0;
  if (limit > 0)
    for (const Json& e : j) most = std::max(most, depth(e, limit - 1));
  return most + 1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  FieldLimits limits;
  limits.max_field_bytes = 4096;
  std::size_t nesting = json_nesting_depth(text);
  try {
    check_json_depth(text);
    check_string_lengths(text, limits);
  } catch (const UserError&) {
    return 0;
  }
  FUZZ_CHECK(nesting <= kMaxJsonDepth);
  // nlohmann's parser takes a NUL byte for the end of the text; the importer refuses one first.
  if (text.find('\0') != std::string_view::npos) return 0;
  Json obj = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (obj.is_discarded()) return 0;
  // At most the text's bracket depth: a repeated key keeps its last value only, so a deeper
  // earlier one is in the text but not in the value.
  FUZZ_CHECK(depth(obj, kMaxJsonDepth + 1) <= nesting);
  try {
    if (obj.is_array()) {
      validate_comments(obj, limits);
      validate_timeline(obj, limits);
      return 0;
    }
    validate_issue(obj, limits);
  } catch (const UserError&) {
    return 0;
  }
  // Accepted: the store takes it (a flattened object's "repo" may name another repository).
  auto db = fuzz::fresh_db();
  IssueStore store(*db);
  store.set_limits(limits);
  std::int64_t id = 0;
  try {
    store.upsert_issue("acme/conv", obj, &id);
  } catch (const UserError& e) {
    std::fprintf(stderr, "validated, then refused by the store: %s\n", e.what());
    FUZZ_CHECK(!"an object validate_issue accepts is stored");
  }
  FUZZ_CHECK(id > 0);
  return 0;
}
