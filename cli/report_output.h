// Where a rendered report goes: stdout (escaped on a terminal, since reports quote issue text
// and error signatures) or --out FILE. Shared by `report` and `test report`.
#pragma once

#include <string>

#include "reports/render.h"

namespace convfail::cli {

void emit_report(const std::string& text, reports::ReportFormat format, const std::string& out);

}  // namespace convfail::cli
