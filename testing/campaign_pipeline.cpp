#include "testing/campaign_pipeline.h"

#include "testing/campaign_store.h"
#include "testing/groups.h"

namespace convfail::testing {

CampaignResult run_campaign_pipeline(Db& db, const CampaignRequest& request) {
  CampaignResult out;
  out.run = run_campaign(db, request.config, request.run);  // regroups when finished
  // The rest waits until every model is stored; a shard leaves it to `test merge`, once.
  if (!out.run.finished || request.run.shard.active()) return out;
  // Finished before and settled then: nothing to do (`test match` matches again on request);
  // a minimisation cut short before goes on.
  if (out.run.answered_from_store &&
      (!request.settle.minimise || groups_to_minimise(db, out.run.campaign) == 0))
    return out;
  SettleOptions so = request.settle;
  so.store_dir = request.run.store_dir;
  so.progress = request.run.progress;
  out.minimised = settle_groups(db, out.run.campaign, so);
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
