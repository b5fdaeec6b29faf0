// `convfail test compare A B` (two campaigns side by side, a CI gate with --fail-on) and
// `convfail test merge SHARD.db... --into ALL.db` (the shards of `test run --shard K/N`).
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "campaign/analysis/campaign_compare.h"
#include "campaign/groups/groups.h"
#include "campaign/report/campaign_compare_report.h"
#include "campaign/run/campaign_merge.h"
#include "campaign/run/campaign_pipeline.h"
#include "campaign/run/minimise.h"
#include "campaign/store/campaign_store.h"
#include "cli/report_output.h"
#include "cli/repro_options.h"
#include "cli/test_campaigns.h"
#include "core/error.h"
#include "core/json_util.h"
#include "core/migrations.h"
#include "core/text.h"

using nlohmann::json;

namespace convfail::cli {
namespace {

struct CompareArgs {
  std::int64_t a = 0, b = 0;
  std::string db_a, db_b, format = "md", out, fail_on;
  bool json = false, raw_csv = false;
};

// One side: campaign `id` (0: the latest) of `path`, else of the global --db.
campaign::CompareSide compare_side(Context& ctx, std::unique_ptr<Db>& own, const std::string& path,
                                   std::int64_t id, const std::string& label) {
  Db* db = nullptr;
  if (path.empty()) {
    db = &ctx.read_db();
  } else {
    own = open_database_read_only(path);
    db = own.get();
  }
  if (id == 0) id = campaign::latest_campaign(*db);
  return campaign::load_compare_side(*db, id, label, path);  // the database named when not --db
}

void run_compare(Context& ctx, const CompareArgs& a) {
  if ((a.a == 0 && a.db_a.empty()) || (a.b == 0 && a.db_b.empty()))
    throw UsageError("test compare: name campaigns A and B, or --db-a and --db-b (their latest)");
  auto format = reports::parse_report_format(a.json ? "json" : a.format);
  std::unique_ptr<Db> db_a, db_b;
  auto side_a = compare_side(ctx, db_a, a.db_a, a.a, "A");
  auto side_b = compare_side(ctx, db_b, a.db_b, a.b, "B");
  campaign::Comparison c = campaign::compare_campaigns(std::move(side_a), std::move(side_b));
  emit_report(campaign::comparison_report(c, format, a.raw_csv), format, a.out);
  std::cout.flush();
  if (!a.fail_on.empty())  // a gate on an unfinished campaign would pass on nothing
    for (const campaign::CompareSide* s : {&c.a, &c.b})
      if (!s->finished)
        throw UserError("--fail-on " + a.fail_on + ": campaign " + std::to_string(s->campaign) +
                        " (" + s->label + ") is not finished (" + std::to_string(s->models.size()) +
                        " models stored, no groups yet): run the same `convfail test run` to "
                        "finish it, then compare");
  int n = a.fail_on == "new" ? c.count("new") : a.fail_on == "regressed" ? c.regressed : 0;
  if (n > 0)
    throw UserError("--fail-on " + a.fail_on + ": " + std::to_string(n) +
                    (a.fail_on == "new" ? " failure group(s) of B are not in A"
                                        : " model(s) succeeded in A and fail in B"));
}

}  // namespace

void add_test_compare(CLI::App& parent, Context& ctx) {
  auto a = std::make_shared<CompareArgs>();
  auto* cmd = parent.add_subcommand(
      "compare", "two campaigns: differing settings, outcome transitions, new and fixed groups");
  cmd->add_option("A", a->a, "campaign id of A (the base; default with --db-a: its latest)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 62));
  cmd->add_option("B", a->b, "campaign id of B (the head; default with --db-b: its latest)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 62));
  cmd->add_option("--db-a", a->db_a, "database of A (default: --db)");
  cmd->add_option("--db-b", a->db_b, "database of B (default: --db)");
  auto* format_option =
      cmd->add_option("--format", a->format, "md, csv, latex, html or json")->capture_default_str();
  cmd->add_flag("--json", a->json, "same as --format json")->excludes(format_option);
  cmd->add_flag("--raw-csv", a->raw_csv, "CSV: cells as they are (no ' before a formula)");
  cmd->add_option("--out", a->out, "write the comparison to FILE instead of stdout");
  cmd->add_option("--fail-on", a->fail_on,
                  "exit 1 when B has a failure group A has not (new: A ran those models and they "
                  "did not fail that way), or a model that succeeded in A fails in B (regressed): "
                  "a CI gate; models one side did not run (invalid) never count, and an "
                  "unfinished campaign is an error")
      ->check(CLI::IsMember({"new", "regressed"}));
  cmd->footer(
      "Models are matched by their exported model's sha256, else by plan position and name (a\n"
      "synthetic model's name carries its seed; a model that failed before export has no hash),\n"
      "else by a name unique on both sides. Failure groups are matched by outcome and signature\n"
      "and shown by their representative's message; a group only on one side whose models the\n"
      "other side did not run (invalid there, or not planned) is 'not comparable', not new.\n"
      "The settings that differ (configuration and versions: ONNX Runtime release, opset, torch,\n"
      "tolerances, ...) come first. See docs/campaign.md for a CI job comparing base and head.");
  cmd->callback([&ctx, a] { run_compare(ctx, *a); });
}

namespace {

struct MergeArgs {
  std::vector<std::string> shards;
  std::string into;
  bool json = false, unsafe = false, no_minimise = false;
  campaign::SettleOptions settle;
};

json merge_summary_json(const campaign::MergeSummary& m, int minimised) {
  return {{"campaign", m.campaign},
          {"created", m.created},
          {"shards", m.shard_count},
          {"shard_campaigns", m.shard_campaigns},
          {"plan_models", m.plan_models},
          {"added", m.added},
          {"already_stored", m.already},
          {"files_copied", m.files_copied},
          {"stored", m.stored},
          {"missing_models", m.missing},
          {"missing_shards", m.missing_shards},
          {"unfinished_shards", m.partial_shards},
          {"finished", m.finished},
          {"minimised_groups", minimised}};
}

std::string index_list(const std::vector<int>& v, int n) {
  std::vector<std::string> parts;
  for (int k : v) parts.push_back(std::to_string(k) + "/" + std::to_string(n));
  return join(parts, ", ");
}

void run_merge(Context& ctx, const MergeArgs& a) {
  apply_sandbox_choice(a.unsafe);
  campaign::MergeRequest req;
  req.shard_dbs = a.shards;
  req.into = a.into;
  req.busy_timeout = ctx.lock_wait();
  req.settle = a.settle;
  req.settle.minimise = !a.no_minimise;
  req.settle.data_dir = ctx.data_dir;
  req.settle.progress = !a.json;
  campaign::MergeResult out = campaign::merge_campaign(req);
  const campaign::MergeSummary& m = out.merge;
  const campaign::MinimiseSummary& ms = out.minimised;
  if (a.json) {
    std::cout << json_text(merge_summary_json(m, ms.minimised), 2) << "\n";
  } else {
    std::printf(
        "campaign %lld of %s (%s): %d shard campaigns of %d shards, %d models added, %d already "
        "stored, %d model folders copied; %d of %d planned models stored%s\n",
        static_cast<long long>(m.campaign), terminal_safe(a.into).c_str(),
        m.created ? "new" : "existing", m.shard_campaigns, m.shard_count, m.added, m.already,
        m.files_copied, m.stored, m.plan_models, m.finished ? ", finished" : "");
    if (m.finished && !a.no_minimise)
      std::printf("groups: %d minimised, %d skipped\n", ms.minimised, ms.skipped);
  }
  std::cout.flush();
  if (!m.finished)
    throw UserError(
        std::to_string(m.missing) + " of " + std::to_string(m.plan_models) +
        " planned models are stored in no shard" +
        (m.missing_shards.empty()
             ? ""
             : " (missing shards: " + index_list(m.missing_shards, m.shard_count) + ")") +
        (m.partial_shards.empty()
             ? ""
             : " (unfinished shards: " + index_list(m.partial_shards, m.shard_count) + ")") +
        "; merge them when they are done, or run `convfail test run` with the same options on " +
        a.into + " to run what is missing");
}

}  // namespace

void add_test_merge(CLI::App& parent, Context& ctx) {
  auto a = std::make_shared<MergeArgs>();
  auto* cmd =
      parent.add_subcommand("merge", "put the shards of `test run --shard K/N` into one campaign");
  cmd->add_option("SHARD_DB", a->shards,
                  "databases holding shard campaigns (with their "
                  "convfail-data folder beside them)")
      ->required();
  cmd->add_option("--into", a->into, "the database of the merged campaign (created if missing)")
      ->required();
  add_settle_options(cmd, &a->settle, &a->no_minimise);
  cmd->add_flag("--json", a->json, "print the summary as JSON");
  add_sandbox_option(cmd, &a->unsafe);
  cmd->footer(
      "Copies every shard's model rows and files into the campaign of the whole plan's\n"
      "configuration (the one `convfail test run` without --shard makes and continues), keeping\n"
      "rows already stored: merging a shard twice adds nothing. Shards of another configuration\n"
      "(seed, ONNX Runtime release, versions, shard count, ...) are refused, naming the\n"
      "difference, before anything is written. Once every planned model is stored the campaign\n"
      "is regrouped, minimised and matched once; planned models stored in no shard are counted\n"
      "and named by shard, and exit 1.");
  cmd->callback([&ctx, a] { run_merge(ctx, *a); });
}

void add_settle_options(CLI::App* cmd, campaign::SettleOptions* settle, bool* no_minimise) {
  cmd->add_flag("--no-minimise", *no_minimise, "group and match, but do not minimise");
  cmd->add_option("--minimise-budget", settle->minimise_budget,
                  "oracle runs per group, its first and last run included")
      ->capture_default_str()
      ->check(CLI::Range(2, 100000));
  cmd->add_option("--minimise-time", settle->minimise_seconds, "seconds for minimising all groups")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e7));
}

CLI::Option* add_shard_option(CLI::App* cmd, std::string* text) {
  return cmd->add_option(
      "--shard", *text,
      "K/N: only the plan's models whose position modulo N is K (0 <= K < N), a\n"
      "campaign of its own (its configuration records the shard and the whole plan)\n"
      "that `convfail test merge` puts together; default: SLURM_ARRAY_TASK_ID/\n"
      "SLURM_ARRAY_TASK_COUNT when both are set. A shard groups but neither\n"
      "minimises nor matches: the merge does, once");
}

campaign::Shard chosen_shard(const CLI::Option& option, const std::string& text) {
  campaign::Shard s;
  if (option.count() > 0)
    s = campaign::parse_shard(text);
  else if (auto slurm = campaign::shard_from_slurm())
    s = *slurm;
  if (s.active())
    std::fprintf(stderr, "test run: shard %s%s; `convfail test merge` puts the shards together\n",
                 s.text().c_str(),
                 s.from_slurm ? " from SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT" : "");
  return s;
}

}  // namespace convfail::cli
