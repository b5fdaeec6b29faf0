// RFC 4180 CSV: quoted fields may hold commas, doubled quotes and newlines. Used by
// `labels import` / `labels export`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace convfail {

struct CsvRecord {
  std::int64_t line = 0;  // 1-based line where the record starts
  std::vector<std::string> fields;
};

// Parses the whole text. A UTF-8 BOM is ignored, CRLF and LF both end records, blank lines are
// skipped. Throws UserError("LINE: what is wrong") on an unterminated quote or text after a
// closing quote.
std::vector<CsvRecord> parse_csv(std::string_view text);

// One field, quoted when it holds a comma, quote, CR or LF (or leading/trailing space).
std::string csv_field(std::string_view value);
// A record of fields joined with commas, ending in "\n".
std::string csv_line(const std::vector<std::string>& fields);

}  // namespace convfail
