// The campaign as one call, as repro's ReproduceRequest / run_reproduce is for issues: run the
// plan's models not stored yet (campaign.h), and once every model is stored, regroup, minimise
// each group's model and match the groups to stored issues. The command line only parses options
// into a CampaignRequest and prints the CampaignResult.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "campaign/run/campaign.h"
#include "campaign/run/campaign_merge.h"
#include "campaign/run/minimise.h"
#include "campaign/run/plan.h"
#include "core/db.h"

namespace convfail::campaign {

// What follows once every model of a campaign is stored (a run, or `test merge` of its shards):
// minimise each group's model (unless `minimise` is false) and match the groups to stored
// issues. The oracle options and the perturb hook come from the stored configuration.
struct SettleOptions {
  bool minimise = true;      // false: group and match only
  std::int64_t group = 0;    // only this group, also when minimised before (0: every group not
                             // minimised yet)
  int minimise_budget = 48;  // oracle runs per group
  double minimise_seconds = 600;
  std::string store_dir;  // the content-addressed model store
  std::string data_dir;   // taxonomy and rules (candidate issues, group labels)
  bool progress = false;
};

struct CampaignRequest {
  CampaignConfig config;
  RunOptions run;        // run.store_dir: the content-addressed model store
  SettleOptions settle;  // its store_dir and progress are the run's
};

struct CampaignResult {
  RunSummary run;
  MinimiseSummary minimised;
};

// A caught signal (core/interrupt.h: the command line calls catch_interrupts) stops it between
// models, or between minimisation runs, with every folder removed: Interrupted, "interrupted: N
// of M stored; run the same command to continue" (SIGINT; "stopped by SIGTERM: ..." otherwise).
CampaignResult run_campaign_pipeline(Db& db, const CampaignRequest& request);

// The line an interrupted run ends with (above); `planned` < 0: before the plan was made.
std::string interrupted_text(int sig, int stored, int planned);

MinimiseSummary settle_groups(Db& db, std::int64_t campaign, const SettleOptions& options);

// `test minimise`: the campaign a group id names (a group id is global, as in `test bundle` and
// `bisect --group`), else `campaign`, else the latest; settle_groups on it. UserError when the
// group is unknown, or belongs to another campaign than a `campaign` given.
struct MinimiseRequest {
  std::int64_t campaign = 0;  // 0: the group's, else the latest
  SettleOptions settle;       // settle.group: only this group
};
struct MinimiseResult {
  std::int64_t campaign = 0;
  MinimiseSummary minimised;
};
MinimiseResult minimise_campaign(Db& db, const MinimiseRequest& request);

// `test merge`: every shard database read and checked (merge_check) before the target is opened
// or created, then merged; once every planned model is stored, settled once.
struct MergeRequest {
  std::vector<std::string> shard_dbs;
  std::string into;  // the target database (created when missing, after the checks)
  std::chrono::milliseconds busy_timeout{0};  // the target's lock wait
  SettleOptions settle;                       // its store_dir is the target's
};
struct MergeResult {
  MergeSummary merge;
  MinimiseSummary minimised;
};
MergeResult merge_campaign(const MergeRequest& request);

// After a campaign changed (minimised again) or new issues were stored: match every group of the
// campaign to the stored issues again (candidates, classifier labels).
void rematch_groups(Db& db, std::int64_t campaign, const std::string& data_dir);

}  // namespace convfail::campaign
