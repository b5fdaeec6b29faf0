#include "testing/campaign_pipeline.h"

#include <csignal>

#include "core/error.h"
#include "core/interrupt.h"

#include "testing/campaign_store.h"
#include "testing/groups.h"

namespace convfail::testing {

std::string interrupted_text(int sig, int stored, int planned) {
  std::string what = sig == SIGINT ? "interrupted" : "stopped by " + interrupt_name(sig);
  std::string where =
      planned < 0 ? " before any model ran"
                  : ": " + std::to_string(stored) + " of " + std::to_string(planned) + " stored";
  return what + where + "; run the same command to continue";
}

CampaignResult run_campaign_pipeline(Db& db, const CampaignRequest& request) {
  CampaignResult out;
  try {
    out.run = run_campaign(db, request.config, request.run);  // regroups when finished
  } catch (const UserError&) {
    // A worker killed by the signal before the plan was made (its first start).
    if (interrupted())
      throw Interrupted(interrupt_signal(), interrupted_text(interrupt_signal(), 0, -1));
    throw;
  }
  const RunSummary& s = out.run;
  if (s.interrupted)
    throw Interrupted(s.interrupted, interrupted_text(s.interrupted, s.stored, s.planned));
  // The rest waits until every model is stored; a shard leaves it to `test merge`, once.
  if (!s.finished || request.run.shard.active()) return out;
  SettleOptions so = request.settle;
  so.store_dir = request.run.store_dir;
  so.progress = request.run.progress;
  try {
    out.minimised = settle_groups(db, s.campaign, so);
  } catch (const std::exception&) {
    if (interrupted())
      throw Interrupted(interrupt_signal(),
                        interrupted_text(interrupt_signal(), s.stored, s.planned));
    throw;
  }
  return out;
}

MinimiseSummary settle_groups(Db& db, std::int64_t campaign, const SettleOptions& options) {
  MinimiseSummary ms;
  if (options.minimise) {
    nlohmann::json cfg = campaign_config(db, campaign);
    MinimiseOptions mo;
    mo.budget = options.minimise_budget;
    mo.time_budget = options.minimise_seconds;
    mo.store_dir = options.store_dir;
    mo.progress = options.progress;
    mo.perturb = cfg.value("perturb_export", false);
    ms = minimise_groups(db, campaign, oracle_options_from_config(cfg), mo);
  }
  match_groups(db, campaign, options.data_dir);
  return ms;
}

void rematch_groups(Db& db, std::int64_t campaign, const std::string& data_dir) {
  regroup(db, campaign);
  match_groups(db, campaign, data_dir);
}

}  // namespace convfail::testing
