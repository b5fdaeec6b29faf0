#include "reports/per_issue.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/csv.h"
#include "core/error.h"
#include "core/json_util.h"
#include "labeling/label_sets.h"

namespace convfail::reports {
namespace {

const std::vector<std::string>& dimensions() {
  static const std::vector<std::string> dims = {"symptom", "cause", "subtype", "stage"};
  return dims;
}

std::string confidence_text(double c) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", c);
  return buf;
}

// The origin of one cell: the hybrid source says it per cell (the subtype follows the cause);
// a classifier's labels are automatic, every other source's manual.
std::string origin_of(const labeling::IssueLabels& l, const std::string& dim,
                      const labeling::LabelSource& source) {
  if (!l.values.count(dim)) return "";
  if (source.hybrid()) {
    auto it = l.origin.find(dim);
    if (it == l.origin.end() && dim == "subtype") it = l.origin.find("cause");
    return it == l.origin.end() ? "" : it->second;
  }
  return source.classifier() ? "automatic" : "manual";
}

}  // namespace

std::string render_per_issue(Db& db, const Taxonomy& tax, const ReportOptions& options,
                             ReportFormat format, bool raw_csv) {
  if (format != ReportFormat::kCsv && format != ReportFormat::kJson)
    throw UsageError("--per-issue prints csv or json");
  const labeling::LabelSource source = labeling::LabelSource::parse(options.source);
  std::vector<labeling::IssueLabels> labels = report_labels(db, options);
  const std::map<std::int64_t, std::string>& verdicts = options.verdicts;

  std::vector<std::string> header = {"repo", "number", "converter", "created_at"};
  for (const auto& dim : dimensions())
    for (const std::string suffix : {"", "_confidence", "_origin"}) header.push_back(dim + suffix);
  header.push_back("verdict");

  std::string csv = csv_line(header, raw_csv);
  nlohmann::json array = nlohmann::json::array();
  for (const labeling::IssueLabels& l : labels) {
    auto verdict = verdicts.find(l.issue_id);
    std::vector<std::string> cells = {l.repo, std::to_string(l.number),
                                      tax.converter_for_repo(l.repo), l.created_at.value_or("")};
    nlohmann::json j = {
        {"repo", l.repo}, {"number", l.number}, {"converter", tax.converter_for_repo(l.repo)}};
    j["created_at"] = l.created_at ? nlohmann::json(*l.created_at) : nlohmann::json();
    for (const auto& dim : dimensions()) {
      auto value = l.values.find(dim);
      auto confidence = l.confidence.find(dim);
      bool has_value = value != l.values.end();
      bool has_confidence = has_value && confidence != l.confidence.end();
      std::string origin = origin_of(l, dim, source);
      cells.push_back(has_value ? value->second : "");
      cells.push_back(has_confidence ? confidence_text(confidence->second) : "");
      cells.push_back(origin);
      j[dim] = has_value ? nlohmann::json(value->second) : nlohmann::json();
      j[dim + "_confidence"] =
          has_confidence ? nlohmann::json(confidence->second) : nlohmann::json();
      j[dim + "_origin"] = origin.empty() ? nlohmann::json() : nlohmann::json(origin);
    }
    cells.push_back(verdict == verdicts.end() ? "" : verdict->second);
    j["verdict"] = verdict == verdicts.end() ? nlohmann::json() : nlohmann::json(verdict->second);
    csv += csv_line(cells, raw_csv);
    array.push_back(std::move(j));
  }
  return format == ReportFormat::kCsv ? csv : json_text(array, 2) + "\n";
}

}  // namespace convfail::reports
