#include "core/csv.h"
#include "reports/render.h"

namespace convfail::reports {

std::string render_csv(const PrintedReport& report, bool raw) {
  std::string out = csv_line({"table", "row", "column", "value"}, raw);
  for (const auto& t : report.tables) {
    auto tidy = report.tidy.find(t.id);
    if (tidy != report.tidy.end()) {
      for (const TableValue& v : tidy->second)
        out += csv_line({t.id, v.row, v.column, v.value}, raw);
      continue;
    }
    for (const auto& r : t.rows)
      for (std::size_t i = 1; i < r.size() && i < t.header.size(); ++i)
        out += csv_line({t.id, r[0], t.header[i], r[i]}, raw);
  }
  return out;
}

}  // namespace convfail::reports
