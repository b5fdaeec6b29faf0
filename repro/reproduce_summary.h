// What one `reproduce` run found, ran and left out, as data: the command line prints it (repro/
// prints only the results and the JSON documents, which carry it as "summary").
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace convfail::repro {

struct ReproduceSummary {
  bool scanned = false;    // --all scanned the issues for artifacts first (artifacts scan)
  int scanned_issues = 0;  // issues and pull requests read by the scan
  int new_artifacts = 0;   // artifacts the scan stored for the first time
  int models = 0;          // model results (a model that could not run included)
  int scripts = 0;         // script results
  std::map<std::string, int> verdicts;  // verdict -> results
  std::map<std::string, int> skipped;   // why issues ran nothing -> how many issues
  int limited = 0;                      // issues left out by --limit
  std::string next;                     // what to run next when nothing ran; else ""

  int results() const { return models + scripts; }
  nlohmann::json to_json() const {
    nlohmann::json j = {{"models", models},   {"scripts", scripts}, {"verdicts", verdicts},
                        {"skipped", skipped}, {"limited", limited}, {"next", next}};
    if (scanned) j["scanned"] = {{"issues", scanned_issues}, {"new_artifacts", new_artifacts}};
    return j;
  }
};

}  // namespace convfail::repro
