#include "reports/render.h"

namespace convfail::reports {
namespace {

std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string render_csv(const PrintedReport& report) {
  std::string out = "table,row,column,value\n";
  for (const auto& t : report.tables)
    for (const auto& r : t.rows)
      for (std::size_t i = 1; i < r.size() && i < t.header.size(); ++i)
        out +=
            field(t.id) + "," + field(r[0]) + "," + field(t.header[i]) + "," + field(r[i]) + "\n";
  return out;
}

}  // namespace convfail::reports
