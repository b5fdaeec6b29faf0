// `convfail test merge SHARD.db... --into ALL.db`: the shards of one plan (`test run --shard
// K/N`, campaign/run/shard.h) put back into the campaign one run of the whole plan would have made.
// Model rows are copied (a seq already stored is kept: merging a shard twice adds nothing) with
// their content-addressed files (each database's store is <dir of db>/convfail-data/models),
// then the campaign is regrouped; the caller minimises and matches once it is complete.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/db.h"

namespace convfail::campaign {

struct MergeSummary {
  std::int64_t campaign = 0;        // in the target database
  bool created = false;             // a new campaign (else the same configuration was stored there)
  int shard_count = 0;              // N
  int shard_campaigns = 0;          // shard campaigns read (over all databases)
  int plan_models = 0;              // the whole plan
  int added = 0, already = 0;       // rows copied / rows the target held already
  int files_copied = 0;             // model folders copied into the target's store
  int stored = 0;                   // rows of the merged campaign now
  int missing = 0;                  // planned models stored nowhere: plan_models - stored
  std::vector<int> missing_shards;  // shard indices no database held
  std::vector<int> partial_shards;  // shards given but not finished (their campaign stopped early)
  bool finished = false;            // every planned model stored (the campaign is finished)
};

// What a merge reads, read and checked: every shard database open read-only, nothing written.
class MergeCheck {
 public:
  MergeCheck();
  ~MergeCheck();
  MergeCheck(MergeCheck&&) noexcept;
  struct Sources;  // the shard databases and their campaigns
  std::unique_ptr<Sources> sources;
  std::string into_path;
  nlohmann::json whole, versions;  // the whole plan's configuration, the shards' versions
  MergeSummary summary;            // what the check counted: shards, plan, missing, unfinished
};

// Every shard campaign of every database in `shard_dbs` must be of one whole-plan configuration,
// one N and one set of versions: else UserError naming the database, the campaign and the first
// differences. So is a missing database, one with no shard campaign, a model row with a malformed
// hash or outcome, or whose files are not in its database's store. Nothing is written, and the
// target (`into_path`, which may be one of the shards) need not exist.
MergeCheck merge_check(const std::vector<std::string>& shard_dbs, const std::string& into_path);

// Copies what `checked` read into `into` (the database at checked.into_path): files first, then
// rows; regroups.
MergeSummary merge_shards(const MergeCheck& checked, Db& into);
// merge_check, then merge_shards.
MergeSummary merge_shards(const std::vector<std::string>& shard_dbs, Db& into,
                          const std::string& into_path);

}  // namespace convfail::campaign
