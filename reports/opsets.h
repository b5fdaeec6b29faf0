// The evolution of the default ONNX operator set (ai.onnx) from libonnx's schema registry, and
// issues binned by the opset release period they were opened in.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/db.h"
#include "core/taxonomy.h"

namespace convfail::reports {

struct OpsetVersion {
  int version = 0;
  std::vector<std::string> added;       // operators first defined at this version
  std::vector<std::string> updated;     // operators given a new version (deprecations included)
  std::vector<std::string> deprecated;  // the subset of updated that became deprecated
  int total = 0;                        // operators available (not deprecated) at this version
};

// Versions 1..the registry's highest, in order.
std::vector<OpsetVersion> opset_history();

// The since-versions of one default-domain operator, ascending (empty when unknown).
std::vector<int> operator_versions(const std::string& op);

struct OpsetRelease {
  int opset = 0;
  std::string onnx;  // ONNX release that shipped it
  std::string date;  // YYYY-MM-DD
};

// Reads data/opset_releases.json; UserError "file: reason" when missing or malformed.
std::vector<OpsetRelease> load_opset_releases(const std::string& path);

struct OpsetPeriod {
  OpsetRelease release;
  std::string end;   // exclusive: the next release's date, empty when open
  long changes = 0;  // operators added + updated since the previous release's opset
  long issues = 0;
  std::map<std::string, long> issues_by_converter;
};

struct OpsetIssueBins {
  std::vector<OpsetPeriod> periods;
  long before = 0, after = 0, undated = 0;  // issues outside every period
  double spearman = 0;                      // changes vs issues; NaN when undefined
};

// Bins the stored issues (pull requests excluded; only `repos` when not empty) into the
// periods of the releases whose opset the registry knows.
OpsetIssueBins bin_issues_by_opset(Db& db, const Taxonomy& taxonomy,
                                   const std::vector<OpsetVersion>& history,
                                   const std::vector<OpsetRelease>& releases,
                                   const std::vector<std::string>& repos);

}  // namespace convfail::reports
