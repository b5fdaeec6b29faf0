#include <filesystem>
#include <iostream>
#include <memory>

#include "campaign/store/campaign_store.h"
#include "cli/bisect_output.h"
#include "cli/commands.h"
#include "cli/repro_options.h"
#include "core/error.h"
#include "core/json_util.h"
#include "repro/bisect_command.h"

namespace convfail::cli {

namespace fs = std::filesystem;

namespace {

struct BisectFlags {
  std::string target;
  std::int64_t group = 0;
  bool unsafe_no_sandbox = false;
  bool json = false;
};

// Runs the bisect; text is printed model by model as each is done, JSON once at the end.
void run_bisect_command(Context& ctx, const repro::BisectRequest& request, bool json) {
  bool progress = Context::stderr_is_tty();
  repro::BisectProgress on;
  on.event = [progress](const repro::BisectEvent& e) {
    print_bisect_event(std::cerr, e, progress);
  };
  if (!json) on.done = [](const repro::BisectedModel& m) { print_bisect_text(std::cout, m); };
  repro::RuntimeCache cache;
  std::vector<repro::BisectedModel> models = repro::run_bisect(request, ctx.db(), cache, on);
  if (json) std::cout << json_text(bisects_json(models, request)) << "\n";
}

}  // namespace

void add_bisect_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Which ONNX Runtime release changed a model's verdict. Runs the model (a file, an issue's\n"
      "fetched models, or a campaign group's minimised model) on onnxruntime-node releases\n"
      "installed on demand (`convfail runtimes`), newest first, then the oldest that runs, then\n"
      "binary search between releases whose verdicts differ. not_runnable releases (older than\n"
      "the model's opset or IR version) and releases that fail to install are unknown, never\n"
      "taken for fixed: a change across them is shown with them as its gap. The releases beside\n"
      "each change run a second time; one whose two verdicts differ is reported flaky and left\n"
      "out. Prints every release tried with its verdict and signature, each change, the first\n"
      "bad and first good release, and whether the newest still fails. Runs are stored per\n"
      "model content, options and release (runtime_runs): a second bisect reuses them. The\n"
      "releases come from npm (`npm view onnxruntime-node versions`) unless --releases or\n"
      "--installed. --group runs the group's model as the campaign did: on every input set\n"
      "it stored with torch's outputs (a release fails when one set fails) and with the\n"
      "campaign's --rtol/--atol unless they are given here. ISSUE without a fetched model:\n"
      "its repro script (what `reproduce --scripts` runs) runs once, sandboxed, and each model\n"
      "it exports is bisected with the inputs the script fed it and torch's eager outputs\n"
      "(kept in convfail-data/script-exports/ beside the database).");
  auto req = std::make_shared<repro::BisectRequest>();
  auto flags = std::make_shared<BisectFlags>();
  cmd->add_option("MODEL|ISSUE", flags->target,
                  "an ONNX model file, or OWNER/REPO#N (its fetched models, else the models its\n"
                  "repro script exports)");
  auto* group = cmd->add_option(
      "--group", flags->group,
      "a campaign group: its minimised model, input sets and tolerances (convfail test)");
  cmd->add_option("--from", req->from, "oldest release to consider, e.g. 1.14.0");
  cmd->add_option("--to", req->to, "newest release to consider");
  auto* releases = cmd->add_option("--releases", req->releases,
                                   "exactly these releases (comma-separated), not npm's list")
                       ->delimiter(',');
  auto* installed =
      cmd->add_flag("--installed", req->installed_only,
                    "only the installed releases and the pinned one (no registry lookup)");
  cmd->add_flag("--linear", req->linear,
                "run every release once (the baseline the search is measured against)");
  cmd->add_flag("--json", flags->json, "print one JSON document {\"bisects\": [...]}");
  cmd->add_option("--dim", req->dims, "NAME=V: value of a symbolic input dimension (default 1)");
  cmd->add_option("--memory-mb", req->memory_mb, "address-space limit of the runner (MiB)")
      ->capture_default_str()
      ->check(CLI::Range(256, 1 << 20));
  add_model_run_options(cmd, req->options);
  CLI::Option* atol = cmd->get_option("--atol");
  CLI::Option* rtol = cmd->get_option("--rtol");
  add_sandbox_option(cmd, &flags->unsafe_no_sandbox);
  releases->excludes(installed);
  cmd->callback([&ctx, req, flags, group, atol, rtol] {
    bool has_group = group->count() > 0;
    if (has_group == !flags->target.empty())
      throw UsageError("bisect needs one of MODEL, ISSUE or --group");
    apply_sandbox_choice(flags->unsafe_no_sandbox);
    repro::BisectRequest r = *req;
    if (has_group) {
      r.group_id = flags->group;
      // The model as the campaign ran it: every input set it stored with torch's outputs (a
      // mismatch may show on one set only) and its tolerances unless --atol/--rtol are given.
      campaign::GroupRun g =
          campaign::group_run(ctx.db(), flags->group, campaign::model_store_for(ctx.db_path));
      r.group_model = g.model;
      r.group_input_sets = g.input_sets;
      if (atol->count() == 0) r.options.tolerance.atol = g.atol;
      if (rtol->count() == 0) r.options.tolerance.rtol = g.rtol;
    } else if (fs::is_regular_file(flags->target)) {
      r.model = flags->target;
    } else {
      r.issue = flags->target;
      // Without a fetched model, the models its repro script exports, kept beside the database.
      r.export_store =
          (fs::path(campaign::model_store_for(ctx.db_path)).parent_path() / "script-exports")
              .string();
    }
    run_bisect_command(ctx, r, flags->json);
  });
}

}  // namespace convfail::cli
