// Runs a campaign: the plan's models not stored yet, on `jobs` threads each owning an Oracle
// (a warm torch worker and a warm ONNX Runtime runner), one row stored per model as it finishes
// (so kill -9 and the same command again continue it), then the grouping.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "campaign/run/plan.h"
#include "campaign/run/shard.h"
#include "campaign/store/campaign_store.h"
#include "core/db.h"

namespace convfail::campaign {

struct RunOptions {
  int jobs = 1;
  double time_budget_seconds = 0;  // 0: none; models not started by then are left for a rerun
  int limit = 0;                   // run at most N models of the plan now (0: all)
  bool progress = false;           // a progress line on stderr
  bool progress_tty = false;       // rewrite it in place
  bool new_campaign = false;       // never continue a stored one with the same configuration
  std::string store_dir;           // content-addressed model files
  // Only the plan's models of this shard (seq % N == K); the campaign's configuration records
  // the shard and the whole plan's size (campaign/run/shard.h), so it is a campaign of its own.
  Shard shard;
};

struct RunSummary {
  std::int64_t campaign = 0;
  int planned = 0, already = 0, ran = 0;
  int stored = 0;  // the plan's models stored when the run ended
  bool finished = false;
  bool answered_from_store = false;  // finished before: no worker started, nothing settled again
  // The signal that stopped the run (core/interrupt.h; 0: none): no model was started after it,
  // the one it cut was not stored, and the campaign is left to the same command to continue.
  int interrupted = 0;
  double seconds = 0;       // the whole run: worker start, plan, models, grouping
  double loop_seconds = 0;  // the models alone (warm workers, after the first start)
  double models_per_second() const { return loop_seconds > 0 ? ran / loop_seconds : 0; }
};

RunSummary run_campaign(Db& db, const CampaignConfig& config, const RunOptions& options);

// The row a model's result is stored as (campaign_store's StoredModel): the task's identity, the
// result's outcome and measures (differences and tolerances only for compared models), the files'
// content hash `sha` ("" before export).
StoredModel model_row(const ModelTask& task, const ModelResult& result, const std::string& sha);

}  // namespace convfail::campaign
