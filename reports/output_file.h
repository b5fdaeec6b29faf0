// Writing a rendered report to --out: to a temporary file beside it, then renamed, so a failed
// write never leaves half a report.
#pragma once

#include <string>

namespace convfail::reports {

// Throws UserError "path: reason" when the file cannot be written.
void write_output_file(const std::string& path, const std::string& text);

}  // namespace convfail::reports
