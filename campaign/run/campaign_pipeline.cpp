#include "campaign/run/campaign_pipeline.h"

#include <csignal>

#include "campaign/groups/groups.h"
#include "campaign/store/campaign_store.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "core/migrations.h"

namespace convfail::campaign {

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
  // Finished before and settled then: nothing to do (`test match` matches again on request);
  // a minimisation cut short before goes on.
  if (s.answered_from_store &&
      (!request.settle.minimise || groups_to_minimise(db, s.campaign) == 0))
    return out;
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
    CampaignConfig cfg = CampaignConfig::from_json(load_campaign(db, campaign).config);
    MinimiseOptions mo;
    mo.budget = options.minimise_budget;
    mo.time_budget = options.minimise_seconds;
    mo.store_dir = options.store_dir;
    mo.progress = options.progress;
    mo.group = options.group;
    mo.perturb = cfg.perturb;
    ms = minimise_groups(db, campaign, cfg.oracle, mo);
  }
  match_groups(db, campaign, options.data_dir);
  return ms;
}

MinimiseResult minimise_campaign(Db& db, const MinimiseRequest& request) {
  MinimiseResult out;
  out.campaign = request.campaign;
  if (request.settle.group) {
    auto g = load_group(db, request.settle.group);
    if (!g)
      throw UserError("no group " + std::to_string(request.settle.group) +
                      " (convfail test groups lists them)");
    if (request.campaign && request.campaign != g->campaign)
      throw UserError("group " + std::to_string(g->id) + " is of campaign " +
                      std::to_string(g->campaign) + ", not of campaign " +
                      std::to_string(request.campaign));
    out.campaign = g->campaign;
  }
  if (!out.campaign) out.campaign = latest_campaign(db);
  out.minimised = settle_groups(db, out.campaign, request.settle);
  return out;
}

MergeResult merge_campaign(const MergeRequest& request) {
  MergeResult out;
  MergeCheck checked = merge_check(request.shard_dbs, request.into);  // nothing written yet
  auto into = open_database(request.into, IfMissing::kCreate);
  if (request.busy_timeout.count() > 0) into->set_busy_timeout(request.busy_timeout);
  out.merge = merge_shards(checked, *into);
  if (out.merge.finished) {  // regrouped: minimise and match once, as a run does when it ends
    SettleOptions so = request.settle;
    so.store_dir = model_store_for(request.into);
    out.minimised = settle_groups(*into, out.merge.campaign, so);
  }
  return out;
}

void rematch_groups(Db& db, std::int64_t campaign, const std::string& data_dir) {
  regroup(db, campaign);
  match_groups(db, campaign, data_dir);
}

}  // namespace convfail::campaign
