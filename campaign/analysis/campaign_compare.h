// Two campaigns side by side (`convfail test compare A B`, `serve`'s /api/campaigns/A/compare/B):
// what differs in their configurations and versions, the models both planned with each one's
// outcome in A and in B (the transitions), and the failure groups matched by (outcome,
// signature): new in B, fixed in B, still failing, or not comparable. The CI gate of a converter's
// pull request runs a small campaign on the base and on the head and fails on a new group; a group
// is new only when A ran its models and they did not fail that way, so a model one side could not
// run (invalid, not run: the harness's limits, never the converter's) never trips the gate.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/config_differences.h"
#include "core/db.h"

namespace convfail::campaign {

// One model row as the comparison needs it.
struct ComparedModel {
  int seq = 0;
  std::string name, sha256, outcome, signature;  // sha256 "" when it failed before export
  std::string message;                           // as said, first line
};

// One campaign: its rows and stored groups (campaign/groups/groups list_groups).
struct CompareSide {
  std::string label;  // "A" or "B"
  std::string db;     // the database it was read from (printed)
  std::int64_t campaign = 0;
  bool finished = false;
  nlohmann::json config, versions, groups;
  std::vector<ComparedModel> models;  // seq order
};

// Reads campaign `campaign` of `db` (UserError when there is none).
CompareSide load_compare_side(Db& db, std::int64_t campaign, const std::string& label,
                              const std::string& db_name);

struct Transition {
  std::string from, to;  // outcomes in A and in B
  int models = 0;
  std::vector<std::string> examples;  // the first few models' names (seq order)
};

struct ComparedGroup {
  // new: only in B, and A ran some of its models without a failure; fixed: only in A, and B ran
  // some of its models without a failure; still: in both; changed: only on one side, and every
  // one of its models the other side ran failed there too, another way (an earlier failure that
  // hid this one, a changed message: no regression and no fix); not_comparable: only on one
  // side, and the other side ran none of its models (each was invalid, not run or not planned).
  std::string status;
  std::string outcome, signature;
  std::string message;  // its representative's message as said (shown_failure), else signature
  std::optional<std::int64_t> id_a, id_b;
  std::int64_t size_a = 0, size_b = 0;
  std::string representative;  // B's representative model (A's for a fixed group)
  // Of the group's models (B's; A's for a fixed group) that the other campaign also ran: their
  // outcome there ("success" -> 5 for a new mismatch group).
  std::map<std::string, int> other_side;
  // not_comparable: why, per reason ("A: invalid: not runnable: ...", "not in A") -> models.
  std::map<std::string, int> reasons;
};

struct Comparison {
  CompareSide a, b;
  std::vector<ConfigDifference> differences;
  int matched = 0, by_hash = 0, by_position = 0, by_name = 0;
  int only_a = 0, only_b = 0, changed = 0;
  int regressed = 0;  // success in A, a failure (conversion, ONNX Runtime, mismatch) in B
  // Models in both that one side did not run (invalid, not run): never a change or a regression;
  // per reason ("B: invalid: not runnable: ...") -> models.
  int not_comparable = 0;
  std::map<std::string, int> not_comparable_reasons;
  std::vector<Transition> transitions;  // changed ones first, then by count
  std::vector<ComparedGroup> groups;    // new, still, fixed; larger first
  int count(const std::string& status) const;
  bool no_change() const { return changed == 0 && count("new") == 0 && count("fixed") == 0; }
  // Both campaigns finished (every planned model stored and grouped): what a gate needs.
  bool complete() const { return a.finished && b.finished; }
};

// Models are matched one to one: the same exported model (model_sha256), else the same plan
// position and name (the name carries a synthetic model's seed; a model that failed before
// export has no hash, and a changed converter exports another file), else the same name when
// it is unique on both sides. Synthetic models are matched by position and name only when both
// campaigns drew from the same support matrix (their configurations' "support_matrix" equal, or
// both unfiltered): two releases' filtered draws put different programs at one position.
Comparison compare_campaigns(CompareSide a, CompareSide b);

// The configuration's "support_matrix" (the identity of a filtered draw), null when it has none or
// is not an object.
nlohmann::json support_draw(const nlohmann::json& config);

}  // namespace convfail::campaign
