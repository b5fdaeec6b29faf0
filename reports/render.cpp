#include "reports/render.h"

#include "core/error.h"

namespace convfail::reports {

ReportFormat parse_report_format(const std::string& name) {
  if (name == "md" || name == "markdown") return ReportFormat::kMarkdown;
  if (name == "csv") return ReportFormat::kCsv;
  if (name == "latex" || name == "tex") return ReportFormat::kLatex;
  if (name == "html") return ReportFormat::kHtml;
  if (name == "json") return ReportFormat::kJson;
  throw UsageError("--format must be md, csv, latex, html or json, not " + name);
}

std::string render_report(const ReportData& data, const Taxonomy& taxonomy, ReportFormat format,
                          bool raw_csv, bool latex_standalone) {
  if (format == ReportFormat::kJson) return render_json(data);
  PrintedReport printed = printed_report(data, taxonomy);
  switch (format) {
    case ReportFormat::kMarkdown:
      return render_markdown(printed);
    case ReportFormat::kCsv:
      return render_csv(printed, raw_csv);
    case ReportFormat::kLatex:
      return render_latex(printed, latex_standalone);
    default:
      return render_html(printed);
  }
}

}  // namespace convfail::reports
