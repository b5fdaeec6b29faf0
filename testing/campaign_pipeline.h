// The campaign as one call, as repro's ReproduceRequest / run_reproduce is for issues: run the
// plan's models not stored yet (campaign.h), and once every model is stored, regroup, minimise
// each group's model and match the groups to stored issues. The command line only parses options
// into a CampaignRequest and prints the CampaignResult.
#pragma once

#include <cstdint>
#include <string>

#include "core/db.h"
#include "testing/campaign.h"
#include "testing/minimise.h"
#include "testing/plan.h"

namespace convfail::testing {

// What follows once every model of a campaign is stored (a run, or `test merge` of its shards):
// minimise each group's model (unless `minimise` is false) and match the groups to stored
// issues. The oracle options and the perturb hook come from the stored configuration.
struct SettleOptions {
  bool minimise = true;      // false: group and match only
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

// After a campaign changed (minimised again) or new issues were stored: match every group of the
// campaign to the stored issues again (candidates, classifier labels).
void rematch_groups(Db& db, std::int64_t campaign, const std::string& data_dir);

}  // namespace convfail::testing
