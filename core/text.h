// The one set of small string and time helpers every module uses (trim, lower-case, join, URL
// encoding, ISO-8601 times). ASCII only: case folding and whitespace are byte-wise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace convfail {

// Whitespace trimmed by default: space, tab, CR, LF.
inline constexpr std::string_view kSpaceChars = " \t\r\n";

// `s` without leading and trailing characters from `chars`.
std::string trim(std::string_view s, std::string_view chars = kSpaceChars);
// ASCII lower-case copy.
std::string lower(std::string_view s);
// Case-insensitive (ASCII) equality.
bool iequals(std::string_view a, std::string_view b);
// Items separated by `sep` ("" for no items).
std::string join(const std::vector<std::string>& items, std::string_view sep);
bool starts_with(std::string_view s, std::string_view prefix);
bool ends_with(std::string_view s, std::string_view suffix);

// Percent-encodes everything but RFC 3986 unreserved characters (A-Z a-z 0-9 - _ . ~).
std::string url_encode(std::string_view value);

// Text from outside made safe to print on a terminal: C0 and C1 control characters, DEL,
// Unicode bidirectional overrides and bytes that are not valid UTF-8 become visible escapes
// (`\x1b`, `\u202e`), a backslash becomes `\\`, so no byte sequence can move the cursor, set the
// title or hide text. Newlines and tabs are kept when `keep_newlines` (multi-line views) and
// escaped otherwise (one-line messages). Valid printable UTF-8 is unchanged.
// `escape_backslash` false leaves backslashes alone: for a last pass over messages whose quoted
// parts were escaped already (main's error output), which then stays idempotent.
std::string terminal_safe(std::string_view text, bool keep_newlines = false,
                          bool escape_backslash = true);

// Byte offset of the first byte that does not start a valid UTF-8 sequence (overlong forms,
// surrogates and code points past U+10FFFF are invalid), or npos when all of `text` is valid.
std::size_t utf8_invalid_at(std::string_view text);
// The first `max_bytes` of `text`, cut at a UTF-8 character boundary.
std::string truncate_utf8(std::string_view text, std::size_t max_bytes);
// `text` for an error message: at most `max_bytes` (cut at a character boundary, "..." added),
// made terminal_safe, in double quotes.
std::string quoted_excerpt(std::string_view text, std::size_t max_bytes = 40);

// A decimal integer that is the whole of `text` (an optional '-', digits, nothing else) and fits
// in 64 bits; nullopt otherwise (callers range-check and name the place in their error).
std::optional<std::int64_t> parse_int64(std::string_view text);

// "YYYY-MM-DDTHH:MM:SS[.fff][Z|+hh:mm|-hh:mm|+hhmm]" to epoch seconds (fraction dropped, offset
// applied; no zone means UTC; 't', 'z' and a space for 'T' are accepted). nullopt when the text is
// not such a time or a field is out of range: callers decide whether that is an error.
std::optional<std::int64_t> parse_iso8601(std::string_view text);
// Epoch seconds as "YYYY-MM-DDTHH:MM:SSZ" (UTC).
std::string format_iso8601(std::int64_t epoch);
// A time as stored: an ISO-8601 time (any offset) or date (YYYY-MM-DD: midnight UTC) as its
// instant in UTC, "YYYY-MM-DDTHH:MM:SSZ" (fraction of a second dropped), so that stored times
// compare as text in the order of their instants; nullopt when `text` is neither.
std::optional<std::string> utc_time(std::string_view text);
// Orders two stored times by their instants (utc_time); text that is no time compares as text,
// after every time. Negative, zero or positive as a < b, a == b, a > b.
int compare_times(std::string_view a, std::string_view b);

// "1 file", "2 files", "0 files": a count and its noun, plural by adding s unless `plural` is
// given.
std::string count_noun(std::int64_t n, std::string_view singular, std::string_view plural = {});

}  // namespace convfail
