// The latest `convfail bisect` of one model (of an issue or of a campaign group): where its verdict
// changed across ONNX Runtime releases, as repro/bisect_history reads it back from the bisects
// table. Header-only vocabulary: every module may include this file of repro (ARCHITECTURE.md,
// include rule); reports renders it from plain data without reading repro's tables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace convfail::repro {

struct RuntimeHistory {
  std::int64_t issue_id = 0;  // the bisected model's issue, else 0
  std::int64_t group_id = 0;  // its campaign group (`bisect --group`), else 0
  std::string issue;          // OWNER/REPO#N ("" for a group)
  std::string symptom;        // the report's label source's, filled by the report; may be empty
  std::string model;          // file name
  std::string from_version, to_version;
  std::optional<std::string> first_bad, regressed_in, fixed_in, newest_known;
  bool still_failing = false;
};

}  // namespace convfail::repro
