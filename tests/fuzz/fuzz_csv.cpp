// core/csv on any text. Invariants: csv_unneutralise restores what csv_neutralise wrote, for
// every value; and every parsed record written back with csv_line (raw) parses to the same
// fields (a record of one empty field excepted: it is written as a blank line, which is skipped;
// and one whose first cell begins with U+FEFF, which the parser takes for a BOM at the file's
// start).
#include "core/csv.h"
#include "core/error.h"
#include "fuzz_check.h"

using namespace convfail;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  FUZZ_CHECK(csv_unneutralise(csv_neutralise(text)) == text);
  std::vector<CsvRecord> records;
  try {
    records = parse_csv(text);
  } catch (const UserError&) {
    return 0;
  }
  for (const CsvRecord& r : records) {
    FUZZ_CHECK(r.line >= 1);
    if (r.fields.size() == 1 && r.fields[0].empty()) continue;
    // A first cell beginning with U+FEFF, written first in a file, reads as the file's BOM.
    if (r.fields[0].rfind("\xEF\xBB\xBF", 0) == 0) continue;
    std::vector<CsvRecord> again = parse_csv(csv_line(r.fields, /*raw=*/true));
    FUZZ_CHECK(again.size() == 1 && again[0].fields == r.fields);
    for (const std::string& f : r.fields) FUZZ_CHECK(csv_unneutralise(csv_neutralise(f)) == f);
    std::vector<CsvRecord> guarded = parse_csv(csv_line(r.fields));
    FUZZ_CHECK(guarded.size() == 1 && guarded[0].fields.size() == r.fields.size());
  }
  return 0;
}
