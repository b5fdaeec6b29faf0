// The printed form of a report: the tables (with the study's binning) and bar charts, as plain
// strings and numbers that every text format renders the same way.
#pragma once

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

struct PrintedReport {
  std::string title;
  std::vector<Table> tables;
  std::vector<BarChart> charts;
};

PrintedReport printed_report(const ReportData& data, const Taxonomy& taxonomy);

// "11 (6%)": count and its share of total, rounded half up (integer arithmetic).
std::string count_with_percent(long count, long total);

// The five most frequent causes over all converters and symptoms (ties: taxonomy order);
// causes never seen and the catch-all (taxonomy.json "catch_all": cause `others`) are left out.
// What table 10 shows; the rest is binned as Other.
std::vector<std::string> top_causes(const ReportData& data, const Taxonomy& taxonomy,
                                    std::size_t k = 5);

}  // namespace convfail::reports
