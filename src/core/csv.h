// RFC 4180 CSV: quoted fields may hold commas, doubled quotes and newlines. The one CSV reader
// and writer: `labels import` / `labels export`, `report --format csv`, gold files of `eval`.
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

// Spreadsheet formula injection (OWASP "CSV Injection"): a cell beginning with =, +, -, @, tab or
// CR is a formula to Excel, LibreOffice and Google Sheets. Written cells that begin so get a
// leading apostrophe, which spreadsheets show as text. Exception: a cell that is exactly a
// decimal number (-0.12, -3, +1e-5) cannot run anything and stays as is, so numeric report
// columns remain numbers. A cell that already begins with apostrophes before such a character
// gets one more, so that csv_unneutralise restores every value exactly.
std::string csv_neutralise(std::string_view value);
// The inverse of csv_neutralise, for reading back an exported file: drops the one apostrophe it
// added and leaves every other value unchanged.
std::string csv_unneutralise(std::string_view value);

// One field, quoted when it holds a comma, quote, CR or LF (or leading/trailing space);
// neutralised first (see csv_neutralise) unless `raw`.
std::string csv_field(std::string_view value, bool raw = false);
// A record of fields joined with commas, ending in "\n".
std::string csv_line(const std::vector<std::string>& fields, bool raw = false);

}  // namespace convfail
