// parse_iso8601, utc_time and parse_int64 (core/text) on any text. Invariants: an accepted time
// formats to a canonical text that parses to the same second and formats the same again;
// parse_int64 accepts exactly the decimal texts that std::to_string writes back.
#include "core/text.h"
#include "fuzz_check.h"

using namespace convfail;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  if (std::optional<std::int64_t> t = parse_iso8601(text)) {
    std::string canonical = format_iso8601(*t);
    FUZZ_CHECK(canonical.size() >= 20 && canonical.back() == 'Z');
    std::optional<std::int64_t> back = parse_iso8601(canonical);
    FUZZ_CHECK(back && *back == *t);
    FUZZ_CHECK(format_iso8601(*back) == canonical);
  }
  // utc_time: the canonical text of the time, or of the date alone; its shortcut for texts
  // already canonical gives the same.
  std::optional<std::string> utc;
  if (std::optional<std::int64_t> t = parse_iso8601(text)) {
    utc = format_iso8601(*t);
  } else if (text.size() == 10) {
    if (std::optional<std::int64_t> d = parse_iso8601(std::string(text) + "T00:00:00Z"))
      utc = format_iso8601(*d);
  }
  FUZZ_CHECK(utc_time(text) == utc);
  if (std::optional<std::int64_t> n = parse_int64(text)) {
    std::string written = std::to_string(*n);
    // The text is the number, maybe with leading zeros or "-0".
    FUZZ_CHECK(parse_int64(written) == n);
    FUZZ_CHECK(text.find_first_not_of("-0123456789") == std::string_view::npos);
  }
  return 0;
}
