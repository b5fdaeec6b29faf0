// `convfail test`: the converter campaign (campaign/): run, status, groups, minimise, bundle.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "campaign/analysis/campaign_breakdown.h"
#include "campaign/groups/groups.h"
#include "campaign/report/campaign_report.h"
#include "campaign/run/bundle.h"
#include "campaign/run/campaign_pipeline.h"
#include "campaign/run/minimise.h"
#include "campaign/store/campaign_store.h"
#include "cli/commands.h"
#include "cli/report_output.h"
#include "cli/repro_options.h"
#include "cli/test_campaigns.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "core/text.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace convfail::cli {
namespace {

void add_oracle_options(CLI::App* cmd, campaign::OracleOptions& o) {
  cmd->add_option("--opset", o.opset, "ONNX opset of torch.onnx.export (16 or 17)")
      ->capture_default_str()
      ->check(CLI::IsMember({16, 17}));
  cmd->add_option("--rtol", o.rtol, "relative tolerance")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--atol", o.atol, "absolute tolerance")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--inputs", o.inputs, "input sets per model")
      ->capture_default_str()
      ->check(CLI::Range(1, 20));
  cmd->add_option("--max-elements", o.max_elements, "largest tensor of a synthetic model")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{16}, std::int64_t{1} << 26));
  cmd->add_option("--image-size", o.image_size,
                  "torchvision: input side in pixels instead of each family's default (224;\n"
                  "detection resizes to it instead of 800; video 112, optical flow 128); 64\n"
                  "cuts worker time about 2.5x, large models stay bound by their weights")
      ->check(CLI::Range(32, 1024));
  cmd->add_option("--timeout", o.timeout_seconds,
                  "seconds per model and step (wall clock); a model that takes longer is\n"
                  "not_run")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 3600.0));
  cmd->add_option("--memory-mb", o.memory_mb,
                  "address space of each torch worker (and at least of each ONNX Runtime\n"
                  "runner), MB; out of memory in the worker marks the model not_run")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{512}, std::uint64_t{1} << 20));
  cmd->add_option("--ort", o.ort_version,
                  "run ONNX Runtime steps on this onnxruntime-node release (convfail runtimes\n"
                  "install VERSION) instead of the pinned one; the campaign records the release,\n"
                  "so the same models on another release are another campaign");
}

std::int64_t campaign_or_latest(Db& db, std::int64_t id) {
  return id > 0 ? id : campaign::latest_campaign(db);
}

void print_status(const campaign::StatusCounts& s) {
  std::printf("campaign %lld: %lld models stored, %s\n", static_cast<long long>(s.campaign.id),
              static_cast<long long>(s.planned),
              s.campaign.finished() ? "finished" : "not finished");
  for (const auto& [k, v] : s.outcomes)
    std::printf("  %-19s %6lld  %5.1f%%\n", k.c_str(), static_cast<long long>(v),
                s.planned ? 100.0 * static_cast<double>(v) / static_cast<double>(s.planned) : 0);
  for (const auto& [k, v] : s.mismatch_modes)
    std::printf("    mismatch %-12s %lld\n", terminal_safe(k).c_str(), static_cast<long long>(v));
  for (const auto& [reason, n] : s.not_run_reasons)
    std::printf("    %lld: %s\n", static_cast<long long>(n),
                terminal_safe(truncate_utf8(reason, 200)).c_str());
  if (s.harness_notes)
    std::printf("  %lld model(s) run other than as exported (campaign_models.harness_note)\n",
                static_cast<long long>(s.harness_notes));
  std::printf("  groups %lld\n", static_cast<long long>(s.groups));
}

// --source checked before anything starts (default synthetic); scripts' absolute paths.
void check_sources(campaign::CampaignConfig* config) {
  if (config->sources.empty()) config->sources = {"synthetic"};
  for (const auto& s : config->sources) {
    if (s == "synthetic") continue;
    if (campaign::is_zoo_source(s)) {
      campaign::zoo_subset(s);  // names checked before anything starts
      continue;
    }
    if (s.rfind("script:", 0) != 0)
      throw UsageError(
          "--source: expected synthetic, torchvision, torchaudio, text or real (each with an "
          "optional :NAME,...) or script:FILE.py, got '" +
          terminal_safe(s) + "'");
    std::string file = s.substr(7);
    if (!fs::is_regular_file(file))
      throw UserError("--source " + terminal_safe(s) + ": no such file");
    config->scripts_abs.push_back(fs::canonical(file).string());
  }
}

// --dtypes (NNSmith's nine, or all) and --study (the study's configuration: 1,724 models over
// all nine types; an explicit --models or --dtypes still applies).
void add_dtype_options(CLI::App* cmd, std::vector<std::string>& dtypes, bool* study) {
  cmd->add_option("--dtypes", dtypes,
                  "synthetic tensor types: float32 float16 float64 uint8 int8 int16 int32\n"
                  "int64 bool, or all (NNSmith's nine); float32 is always among them")
      ->check(CLI::IsMember({"float32", "float16", "float64", "uint8", "int8", "int16", "int32",
                             "int64", "bool", "all"}))
      ->capture_default_str();
  cmd->add_flag("--study", *study,
                "the study's synthetic campaign: " + std::to_string(campaign::kStudyModels) +
                    " models over all nine types\n(--models and --dtypes still apply: "
                    "--study --dtypes float32 for float32 only)");
}

void apply_dtype_options(const CLI::App& cmd, bool study, campaign::CampaignConfig* config) {
  if (study && cmd.get_option("--models")->count() == 0) config->models = campaign::kStudyModels;
  if (study && cmd.get_option("--dtypes")->count() == 0) config->oracle.dtypes = {"all"};
  config->oracle.dtypes = campaign::normalise_dtypes(config->oracle.dtypes);
}

struct RunArgs {
  campaign::CampaignConfig config;
  campaign::RunOptions run;
  std::string nodes = "15-100:5", shard;
  bool json = false, unsafe = false, no_minimise = false, study = false, unfiltered = false;
  campaign::SettleOptions settle;
};

const char* const kRunSignals =
    "Ctrl-C, SIGTERM or SIGHUP stop it between models: the model it cut is not stored, its\n"
    "temporary folders are removed, and it exits 128+N (130 for Ctrl-C) saying how many models\n"
    "are stored; the same command continues. One run per campaign at a time (a lock beside the\n"
    "database in convfail-data/locks/).";

// What a run did, then the campaign's counts and the support matrix beside them.
void print_run(Db& db, const RunArgs& a, const campaign::CampaignResult& out) {
  const campaign::RunSummary& s = out.run;
  auto st = campaign::campaign_status(db, s.campaign);
  json matrix = matrix_summary_json(db, st.campaign.versions, a.config);
  if (a.json) {
    json j = st.to_json();
    j["ran"] = s.ran;
    j["already_stored"] = s.already;
    j["planned"] = s.planned;
    j["answered_from_store"] = s.answered_from_store;
    j["seconds"] = s.seconds;
    j["models_per_second"] = s.models_per_second();
    j["minimised_groups"] = out.minimised.minimised;
    j["support_matrix"] = matrix;
    std::cout << j.dump(2) << "\n";
    return;
  }
  if (s.answered_from_store)
    std::printf(
        "campaign %lld is finished: all %d planned models are stored, nothing to run "
        "(--new runs a fresh campaign)\n",
        static_cast<long long>(s.campaign), s.planned);
  else
    std::printf("ran %d models in %.1f s (%.2f models/s), %d already stored, %d planned\n", s.ran,
                s.seconds, s.models_per_second(), s.already, s.planned);
  print_status(st);
  print_matrix_summary(matrix, a.config.filtered);
}

void run_test_run(Context& ctx, RunArgs& a, const CLI::Option& shard_option, CLI::App& cmd) {
  a.run.shard = chosen_shard(shard_option, a.shard);
  apply_dtype_options(cmd, a.study, &a.config);
  campaign::parse_nodes(a.nodes, &a.config);
  check_sources(&a.config);
  apply_sandbox_choice(a.unsafe);
  Db& db = ctx.create_db();  // a campaign fills a database, like import and crawl
  a.run.store_dir = campaign::model_store_for(ctx.db_path);
  a.run.progress = !a.json || Context::stderr_is_tty();
  a.run.progress_tty = Context::stderr_is_tty();
  a.config.filtered = !a.unfiltered;
  campaign::CampaignRequest req;
  req.config = a.config;
  req.run = a.run;
  req.settle = a.settle;
  req.settle.minimise = !a.no_minimise;
  req.settle.data_dir = ctx.data_dir;
  // Ctrl-C, SIGTERM, SIGHUP: stop between models, remove every temporary folder, exit 128+N.
  catch_interrupts();
  print_run(db, a, campaign::run_campaign_pipeline(db, req));
}

void add_run(CLI::App& parent, Context& ctx) {
  auto a = std::make_shared<RunArgs>();
  a->run.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto* cmd = parent.add_subcommand("run", "run (or continue) a campaign");
  cmd->add_option("--source", a->config.sources,
                  "synthetic | torchvision | torchaudio | text | real (the three) | any of\n"
                  "those four as SOURCE:NAME[,NAME...] | script:FILE.py (repeatable, in this\n"
                  "order; default synthetic)");
  cmd->add_option("--nodes", a->nodes, "synthetic operators per model: MIN-MAX:STEP")
      ->capture_default_str();
  cmd->add_option("--models", a->config.models, "synthetic models in the plan")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--seed", a->config.seed, "campaign seed")->capture_default_str();
  add_dtype_options(cmd, a->config.oracle.dtypes, &a->study);
  add_oracle_options(cmd, a->config.oracle);
  cmd->add_option("--jobs", a->run.jobs, "parallel workers (default: cores)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--limit", a->run.limit, "run at most N models now (0 = all)")
      ->check(CLI::Range(0, 1 << 30));
  cmd->add_option("--time-budget", a->run.time_budget_seconds,
                  "seconds; models not started by then are left for a rerun")
      ->check(CLI::Range(0.0, 1e7));
  auto* shard_option = add_shard_option(cmd, &a->shard);
  cmd->add_flag("--unfiltered", a->unfiltered,
                "synthetic: draw every operator/type pair eager takes (the study's replication)\n"
                "instead of only those the support matrix of the release says work end to end\n"
                "(measured first when missing; convfail test support)");
  cmd->add_flag("--new", a->run.new_campaign,
                "a new campaign even when one with the same configuration is stored");
  add_settle_options(cmd, &a->settle, &a->no_minimise);
  cmd->add_flag("--perturb-export", a->config.perturb,
                "test hook: add 1 to the first output of every exported model (mismatches)")
      ->group("");
  cmd->add_flag("--external-data-export", a->config.external_data,
                "test hook: save every exported model's weights as external data files")
      ->group("");
  cmd->add_flag("--json", a->json, "print the summary as JSON");
  add_sandbox_option(cmd, &a->unsafe);
  cmd->footer(parent.get_footer() + "\n\n" + kRunSignals);
  cmd->callback([&ctx, a, shard_option, cmd] { run_test_run(ctx, *a, *shard_option, *cmd); });
}

void add_status(CLI::App& parent, Context& ctx) {
  auto id = std::make_shared<std::int64_t>(0);
  auto as_json = std::make_shared<bool>(false);
  auto* cmd = parent.add_subcommand("status", "outcome counts of a campaign");
  cmd->add_option("--campaign", *id, "campaign id (default: the latest)");
  cmd->add_flag("--json", *as_json, "print as JSON");
  cmd->callback([&ctx, id, as_json] {
    Db& db = ctx.read_db();
    auto s = campaign::campaign_status(db, campaign_or_latest(db, *id));
    if (*as_json)
      std::cout << s.to_json().dump(2) << "\n";
    else
      print_status(s);
  });
}

void add_groups(CLI::App& parent, Context& ctx) {
  auto id = std::make_shared<std::int64_t>(0);
  auto as_json = std::make_shared<bool>(false);
  auto* cmd = parent.add_subcommand(
      "groups", "failure groups: size, outcome, minimal size, candidate issues or new");
  cmd->add_option("--campaign", *id, "campaign id (default: the latest)");
  cmd->add_flag("--json", *as_json, "print as JSON");
  cmd->callback([&ctx, id, as_json] {
    Db& db = ctx.read_db();  // a listing: `test match` matches the groups again
    std::int64_t c = campaign_or_latest(db, *id);
    json groups = campaign::list_groups(db, c);
    if (*as_json) {
      std::cout << groups.dump(2) << "\n";
      return;
    }
    for (const auto& g : groups) {
      std::string nodes = g["original_nodes"].is_null() ? "?" : g["original_nodes"].dump();
      if (!g["minimised_nodes"].is_null()) nodes += "->" + g["minimised_nodes"].dump();
      std::string said =
          campaign::shown_failure(g["signature"].get<std::string>(),
                                  g["message"].is_string() ? g["message"].get<std::string>() : "");
      std::printf("group %lld  %-18s size %-4lld nodes %-8s %s\n",
                  static_cast<long long>(g["id"].get<std::int64_t>()),
                  g["outcome"].get<std::string>().c_str(),
                  static_cast<long long>(g["size"].get<std::int64_t>()), nodes.c_str(),
                  terminal_safe(said).c_str());
      const json& cands = g["candidates"];
      if (!cands.is_array() || cands.empty()) {
        std::printf("    no candidate: no stored issue names its operator or error (new)\n");
        continue;
      }
      for (std::size_t i = 0; i < cands.size() && i < 3; ++i)
        std::printf("    candidate %s  score %.2f  %s\n",
                    terminal_safe(cands[i].value("issue", "")).c_str(),
                    cands[i].value("score", 0.0), terminal_safe(cands[i].value("why", "")).c_str());
    }
  });
}

void add_match(CLI::App& parent, Context& ctx) {
  auto id = std::make_shared<std::int64_t>(0);
  auto* cmd = parent.add_subcommand(
      "match", "regroup a campaign's failures and match them to the issues stored now");
  cmd->add_option("--campaign", *id, "campaign id (default: the latest)");
  cmd->callback([&ctx, id] {
    Db& db = ctx.db();
    std::int64_t c = campaign_or_latest(db, *id);
    campaign::rematch_groups(db, c, ctx.data_dir);
    std::printf("campaign %lld: %zu groups matched\n", static_cast<long long>(c),
                campaign::list_groups(db, c).size());
  });
}

void add_minimise(CLI::App& parent, Context& ctx) {
  struct Args {
    campaign::MinimiseRequest req;
    bool unsafe = false, json = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = parent.add_subcommand("minimise", "shrink each group's model (delta debugging)");
  cmd->add_option("--campaign", a->req.campaign,
                  "campaign id (default: the --group's campaign, else the latest)");
  cmd->add_option("--group", a->req.settle.group,
                  "only this group (a group id of `test groups`, whichever campaign; also when "
                  "already minimised)");
  cmd->add_option("--budget", a->req.settle.minimise_budget,
                  "oracle runs per group, its first and last run included")
      ->capture_default_str()
      ->check(CLI::Range(2, 100000));
  cmd->add_flag("--json", a->json, "print the summary as JSON");
  add_sandbox_option(cmd, &a->unsafe);
  cmd->callback([&ctx, a] {
    apply_sandbox_choice(a->unsafe);
    campaign::MinimiseRequest req = a->req;
    req.settle.store_dir = campaign::model_store_for(ctx.db_path);
    req.settle.data_dir = ctx.data_dir;
    req.settle.progress = !a->json;
    req.settle.minimise_seconds = 0;  // no time budget: --budget bounds each group
    campaign::MinimiseResult r = campaign::minimise_campaign(ctx.db(), req);
    const campaign::MinimiseSummary& s = r.minimised;
    if (a->json)
      std::cout << json{{"campaign", r.campaign},
                        {"groups", s.groups},
                        {"minimised", s.minimised},
                        {"skipped", s.skipped},
                        {"ratios", s.ratios}}
                       .dump(2)
                << "\n";
    else
      std::printf("%d groups: %d minimised, %d skipped\n", s.groups, s.minimised, s.skipped);
  });
}

void add_bundle(CLI::App& parent, Context& ctx) {
  auto group = std::make_shared<std::int64_t>(0);
  auto dir = std::make_shared<std::string>();
  auto as_json = std::make_shared<bool>(false);
  auto unsafe = std::make_shared<bool>(false);
  auto* cmd = parent.add_subcommand("bundle", "write one group's files for an issue report");
  cmd->add_option("GROUP", *group, "group id (test groups)")->required();
  cmd->add_option("DIR", *dir, "output folder (new or empty)")->required();
  cmd->add_flag("--json", *as_json, "print info.json");
  add_sandbox_option(cmd, unsafe.get());
  cmd->footer(
      "DIR gets model.onnx (the minimised model, else the group's smallest), program.py (the\n"
      "torch program), inputs/input_N.pb, expected/output_N.pb (torch's eager outputs),\n"
      "onnxruntime_unoptimised/ and onnxruntime_optimised/output_N.pb (ONNX Runtime's outputs\n"
      "with graph optimisations disabled and all: the model runs again, sandboxed, on the\n"
      "campaign's release) and info.json (versions, outcome, signature, the ONNX Runtime run).");
  cmd->callback([&ctx, group, dir, as_json, unsafe] {
    apply_sandbox_choice(*unsafe);
    json info =
        campaign::write_bundle(ctx.read_db(), *group, *dir, campaign::model_store_for(ctx.db_path));
    if (*as_json)
      std::cout << info.dump(2) << "\n";
    else
      std::printf("group %lld -> %s: %s\n", static_cast<long long>(*group),
                  terminal_safe(*dir).c_str(), terminal_safe(info["files"].dump()).c_str());
  });
}

void add_report(CLI::App& parent, Context& ctx) {
  struct Args {
    std::int64_t campaign = 0;
    std::string format = "md", out;
    bool json = false, raw_csv = false;
    std::vector<std::string> suites;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = parent.add_subcommand(
      "report",
      "the campaign's tables: outcomes (per node count, type and family, beside the study's),\n"
      "missing ONNX Runtime kernels, the tolerance curve, operators, sequences, coverage, groups");
  cmd->add_option("--campaign", a->campaign, "campaign id (default: the latest)");
  auto* format_option =
      cmd->add_option("--format", a->format, "md, csv, latex, html or json")->capture_default_str();
  cmd->add_flag("--json", a->json, "same as --format json")->excludes(format_option);
  cmd->add_flag("--raw-csv", a->raw_csv, "CSV: cells as they are (no ' before a formula)");
  cmd->add_option("--suite", a->suites,
                  "a folder of test models (*.onnx below it), or onnx-node (Debian\n"
                  "libonnx-testdata's node tests): which failing operators they cover; repeatable");
  cmd->add_option("--out", a->out, "write the report to FILE instead of stdout");
  cmd->footer("The same report as `convfail report --campaign ID`.");
  cmd->callback([&ctx, a] {
    Db& db = ctx.read_db();
    auto format = reports::parse_report_format(a->json ? "json" : a->format);
    campaign::CampaignAnalysisOptions options;
    options.suites = a->suites;
    emit_report(campaign::campaign_report(db, campaign_or_latest(db, a->campaign), format, options,
                                          a->raw_csv),
                format, a->out);
  });
}

}  // namespace

void add_test_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "The converter campaign: models (synthetic DAGs of N operators, torchvision, torchaudio\n"
      "and text architectures with random weights, your own script:FILE.py with make_model()\n"
      "and make_inputs()) through torch eager, torch.onnx.export (to a file: a model over\n"
      "2 GiB with external data), the ONNX checker and ONNX Runtime (all optimisations and\n"
      "none), each in warm sandboxed workers. Outcomes: conversion_failure (the export raised),\n"
      "invalid_export (it wrote a model the ONNX checker refuses), ort_failure, mismatch,\n"
      "success, invalid, not_run (the harness could not run it: the reason is its message).\n"
      "Failures are grouped by (outcome, signature), minimised by delta debugging and matched\n"
      "against the stored issues. See docs/campaign.md.");
  add_run(*cmd, ctx);
  add_status(*cmd, ctx);
  add_groups(*cmd, ctx);
  add_match(*cmd, ctx);
  add_minimise(*cmd, ctx);
  add_bundle(*cmd, ctx);
  add_report(*cmd, ctx);
  add_test_compare(*cmd, ctx);
  add_test_merge(*cmd, ctx);
  add_test_support(*cmd, ctx);
  cmd->require_subcommand(1);
}

}  // namespace convfail::cli
