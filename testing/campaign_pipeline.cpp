#include "testing/campaign_pipeline.h"

#include "testing/groups.h"

namespace convfail::testing {

CampaignResult run_campaign_pipeline(Db& db, const CampaignRequest& request) {
  CampaignResult out;
  out.run = run_campaign(db, request.config, request.run);  // regroups when finished
  if (!out.run.finished) return out;  // the rest waits until every model is stored
  if (request.minimise) {
    MinimiseOptions mo;
    mo.budget = request.minimise_budget;
    mo.time_budget = request.minimise_seconds;
    mo.store_dir = request.run.store_dir;
    mo.progress = request.run.progress;
    mo.perturb = request.config.perturb;
    out.minimised = minimise_groups(db, out.run.campaign, request.config.oracle, mo);
  }
  match_groups(db, out.run.campaign, request.data_dir);
  return out;
}

void rematch_groups(Db& db, std::int64_t campaign, const std::string& data_dir) {
  regroup(db, campaign);
  match_groups(db, campaign, data_dir);
}

}  // namespace convfail::testing
