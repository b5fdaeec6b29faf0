// RFC 4180 CSV: quoted fields may hold commas, doubled quotes and newlines. The one CSV reader
// and writer: `labels import` / `labels export`, `report --format csv`, gold files of `eval`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace convfail {

struct CsvRecord {
  std::int64_t line = 0;  // 1-based line where the record starts
  std::vector<std::string> fields;
};

struct CsvLimits {
  std::size_t max_field_bytes = std::numeric_limits<std::size_t>::max();
  std::size_t max_record_bytes = std::numeric_limits<std::size_t>::max();  // fields together
};

// A field or record over CsvLimits: "LINE: column K: ..." (the reader stops reading there, so a
// 200 MB field costs no more than the limit).
struct CsvTooLong : UserError {
  CsvTooLong(std::int64_t at_line, std::size_t at_column, const std::string& what)
      : UserError(std::to_string(at_line) + ": column " + std::to_string(at_column) + ": " + what),
        line(at_line),
        column(at_column),
        problem(what) {}
  std::int64_t line;
  std::size_t column;   // 1-based
  std::string problem;  // "a field longer than N bytes", "a record longer than N bytes"
};

// Reads RFC 4180 records one at a time from a stream, holding one record in memory. A UTF-8 BOM
// is ignored, CRLF and LF (and a lone CR) end records, blank lines are skipped. Throws
// UserError("LINE: what is wrong") on an unterminated quote, text after a closing quote or a
// quote inside an unquoted field, and CsvTooLong past `limits`.
class CsvReader {
 public:
  explicit CsvReader(std::istream& in, CsvLimits limits = {});
  // The next non-blank record into *rec; false at the end of the input.
  bool next(CsvRecord* rec);

 private:
  int peek();
  int get();
  void add(std::string& field, char c, const CsvRecord& rec);

  std::istream& in_;
  CsvLimits limits_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, end_ = 0;
  std::int64_t line_ = 1;
  std::size_t record_bytes_ = 0;
  bool started_ = false;
};

// Every record of `text` (CsvReader without limits).
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
