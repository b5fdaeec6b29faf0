// The printed form of a report: the tables (with the study's binning) and bar charts, as plain
// strings and numbers that every text format renders the same way.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/taxonomy.h"
#include "reports/report_data.h"

namespace convfail::reports {

struct Table {
  std::string id;  // stage_by_converter, symptom_by_converter, ...
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // rows[i][0] is the row label
  std::string note;                            // a line printed under the table; may be empty
};

// Grouped bars: one group per category, one bar per series.
struct BarChart {
  std::string table_id;  // the table it illustrates (printed after it)
  std::string title;
  std::vector<std::string> categories;
  std::vector<std::string> series;
  std::vector<std::vector<long>> values;  // values[category][series]
};

// One value of a table in tidy long form (what CSV writes): a number or a plain label, never
// "11 (6%)" or "19 / 28". Counts, shares and per-converter parts each get their own column.
struct TableValue {
  std::string row, column, value;
};

struct PrintedReport {
  std::string title;
  std::vector<Table> tables;
  std::vector<BarChart> charts;
  // table id -> its tidy values, for the tables whose printed cells hold more than one value;
  // a table without an entry is tidy as printed (one value per cell).
  std::map<std::string, std::vector<TableValue>> tidy;
};

PrintedReport printed_report(const ReportData& data, const Taxonomy& taxonomy);

// count / total with four decimals ("0.0550"), "0" when total is 0: a share's tidy value.
std::string share(long count, long total);

// "11 (6%)": count and its share of total, rounded half up (integer arithmetic); a share that
// would round to 0% or 100% without being either gets one decimal ("2 (0.1%)" of 1,724), or
// "<0.1%" / ">99.9%".
std::string count_with_percent(long count, long total);

// The five most frequent causes over all converters and symptoms (ties: taxonomy order);
// causes never seen, the catch-all (taxonomy.json "catch_all": cause `others`) and the issues
// without a cause (ReportData::missing) are left out.
// What table 10 shows; the rest is binned as Other.
std::vector<std::string> top_causes(const ReportData& data, const Taxonomy& taxonomy,
                                    std::size_t k = 5);

}  // namespace convfail::reports
