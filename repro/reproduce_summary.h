// What `reproduce --all` found, ran and left out, as data (ReproduceResult::summary): the command
// line prints it (cli/repro_output.h), as text or as "summary" in --json and --jsonl.
#pragma once

#include <map>
#include <string>

namespace convfail::repro {

struct ReproduceSummary {
  int scanned_issues = 0;              // issues and pull requests read by the scan (artifacts scan)
  int new_artifacts = 0;               // artifacts the scan stored for the first time
  int models = 0;                      // model results (a model that could not run included)
  int scripts = 0;                     // script results
  std::map<std::string, int> skipped;  // why issues ran nothing -> how many issues
  int limited = 0;                     // issues left out by --limit
  std::string next;                    // what to run next when nothing ran; else ""
};

}  // namespace convfail::repro
