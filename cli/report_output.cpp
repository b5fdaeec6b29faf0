#include "cli/report_output.h"

#include <iostream>

#include "cli/context.h"
#include "core/text.h"
#include "reports/output_file.h"

namespace convfail::cli {

void emit_report(const std::string& text, reports::ReportFormat format, const std::string& out) {
  if (out.empty()) {
    // JSON's escapes already cover control characters; every other format is escaped on a
    // terminal.
    if (format != reports::ReportFormat::kJson && Context::stdout_is_tty())
      std::cout << terminal_safe(text, true);
    else
      std::cout << text;
    return;
  }
  reports::write_output_file(out, text);
  std::cerr << "wrote " << out << "\n";
}

}  // namespace convfail::cli
