// How `bisect` prints what the library returns (repro/bisect_command.h): each model's releases,
// changes and answer as text, or one JSON document {"bisects": [...]}; and its events on stderr.
#pragma once

#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "repro/bisect_command.h"

namespace convfail::cli {

// One model's answer as text.
void print_bisect_text(std::ostream& out, const repro::BisectedModel& m);

// Every model's answer as JSON: the search's result (BisectResult::to_json) with the model, its
// sha256, the seconds, and the issue (as the request named it) or the campaign group.
nlohmann::json bisects_json(const std::vector<repro::BisectedModel>& models,
                            const repro::BisectRequest& request);

// An event as a line on `err`: skipped models and scripts that export none always, the others
// (script started, installs, runs) only with `progress`.
void print_bisect_event(std::ostream& err, const repro::BisectEvent& e, bool progress);

}  // namespace convfail::cli
