// Printing `convfail opsets`: a text table or JSON of the opset history and the issue bins.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/opsets.h"

namespace convfail::reports {

// One row per opset version (added, updated, total; with names when asked), then the periods.
std::string render_opsets_text(const std::vector<OpsetVersion>& history,
                               const std::optional<OpsetIssueBins>& bins, bool names);
std::string render_opsets_json(const std::vector<OpsetVersion>& history,
                               const std::optional<OpsetIssueBins>& bins);

}  // namespace convfail::reports
