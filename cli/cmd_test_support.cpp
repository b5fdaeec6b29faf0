// `convfail test support`: the measured support matrix (campaign/run/support_matrix), measured
// where missing and printed: operator x type x release, cells per class, every gap with the first
// release where it works.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <thread>

#include "campaign/report/support_report.h"
#include "campaign/run/plan.h"
#include "campaign/run/support_matrix.h"
#include "campaign/store/support_store.h"
#include "cli/report_output.h"
#include "cli/repro_options.h"
#include "cli/test_campaigns.h"
#include "core/error.h"
#include "core/text.h"

namespace convfail::cli {
namespace {

constexpr const char* kSupportHelp =
    "The support matrix, measured: for every operator of the synthetic generator, each of\n"
    "NNSmith's nine types and each opset, one single-operator model through the campaign's\n"
    "oracle (eager, torch.onnx.export, the ONNX checker, ONNX Runtime with all optimisations and\n"
    "none, the comparison). Each cell says where it stopped: works, not_in_eager (torch eager\n"
    "refuses the pair: not run), export_raised, invalid_export (the checker refuses what the\n"
    "exporter wrote), no_kernel, ort_error, wrong_result, crashed, invalid. A matrix is stored "
    "per\n"
    "(torch, onnx, ONNX Runtime release) and measured once; a filtered `test run` (the default)\n"
    "draws only the pairs that work. Prints the cells per class, every gap with the first\n"
    "release where it works, and the operator x type table of each release and opset.";

struct SupportArgs {
  std::vector<std::string> releases, dtypes, ops;
  std::vector<int> opsets = {16, 17};
  std::string format = "md", out;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  double timeout = 60;
  std::uint64_t memory_mb = 8192;
  bool remeasure = false, no_measure = false, json = false, raw_csv = false, unsafe = false;
};

void run_test_support(Context& ctx, const SupportArgs& a) {
  campaign::SupportViewOptions view;
  view.opsets = a.opsets;
  view.dtypes =
      a.dtypes.empty() ? std::vector<std::string>() : campaign::normalise_dtypes(a.dtypes);
  auto asked = [&](const char* d) {
    return std::find(a.dtypes.begin(), a.dtypes.end(), d) != a.dtypes.end();
  };
  if (!a.dtypes.empty() && !asked("float32") && !asked("all"))
    view.dtypes.erase(std::remove(view.dtypes.begin(), view.dtypes.end(), "float32"),
                      view.dtypes.end());  // normalise_dtypes adds float32; a view need not
  view.ops = a.ops;
  std::vector<std::string> shown;
  if (a.no_measure) {
    shown = a.releases;
  } else {
    apply_sandbox_choice(a.unsafe);
    Db& db = ctx.create_db();
    for (const auto& r : a.releases.empty() ? std::vector<std::string>{""} : a.releases) {
      campaign::MeasureOptions mo;
      mo.opsets = a.opsets;
      mo.dtypes = view.dtypes;
      mo.ops = a.ops;
      mo.jobs = a.jobs;
      mo.remeasure = a.remeasure;
      mo.progress = true;
      mo.oracle.ort_version = r;
      mo.oracle.timeout_seconds = a.timeout;
      mo.oracle.memory_mb = a.memory_mb;
      campaign::MeasureSummary s = campaign::ensure_support_matrix(db, mo);
      std::fprintf(stderr,
                   "support matrix onnxruntime %s: %d cells measured in %.1f s, %d not in eager, "
                   "%d already stored\n",
                   terminal_safe(s.versions.onnxruntime).c_str(), s.measured, s.seconds,
                   s.not_in_eager, s.already);
      shown.push_back(s.versions.onnxruntime);
    }
  }
  Db& db = ctx.read_db();
  auto views = campaign::load_matrix_views(db, shown);
  if (views.empty())
    throw UserError("no support matrix stored (convfail test support measures one)");
  auto format = reports::parse_report_format(a.json ? "json" : a.format);
  emit_report(campaign::render_support(views, view, format, a.raw_csv), format, a.out);
}

}  // namespace

void add_test_support(CLI::App& parent, Context& ctx) {
  auto a = std::make_shared<SupportArgs>();
  auto* cmd = parent.add_subcommand(
      "support", "the measured operator x type x release support matrix (measured if missing)");
  cmd->footer(kSupportHelp);
  cmd->add_option("--ort", a->releases,
                  "onnxruntime-node releases (convfail runtimes install V; repeatable; default:\n"
                  "the pinned one); each is measured where its matrix lacks cells");
  cmd->add_option("--opset", a->opsets, "opsets (repeatable)")
      ->capture_default_str()
      ->check(CLI::IsMember({16, 17}));
  cmd->add_option("--dtypes", a->dtypes, "types measured and shown (default: all nine)")
      ->check(CLI::IsMember({"float32", "float16", "float64", "uint8", "int8", "int16", "int32",
                             "int64", "bool", "all"}));
  cmd->add_option("--ops", a->ops, "only these operators of the generator (repeatable)")
      ->delimiter(',');
  cmd->add_option("--jobs", a->jobs, "parallel workers (default: cores)")->check(CLI::Range(1, 64));
  cmd->add_option("--timeout", a->timeout, "seconds per cell and step (wall clock)")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 3600.0));
  cmd->add_option("--memory-mb", a->memory_mb, "address space of each worker, MB")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{512}, std::uint64_t{1} << 20));
  cmd->add_flag("--remeasure", a->remeasure, "forget the stored cells of these releases first");
  auto* no_measure = cmd->add_flag("--no-measure", a->no_measure,
                                   "print what is stored, measure nothing (every stored release\n"
                                   "unless --ort names some)");
  cmd->get_option("--remeasure")->excludes(no_measure);
  auto* format_option =
      cmd->add_option("--format", a->format, "md, csv, latex, html or json")->capture_default_str();
  cmd->add_flag("--json", a->json, "same as --format json")->excludes(format_option);
  cmd->add_flag("--raw-csv", a->raw_csv, "CSV: cells as they are (no ' before a formula)");
  cmd->add_option("--out", a->out, "write it to FILE instead of stdout");
  add_sandbox_option(cmd, &a->unsafe);
  cmd->callback([&ctx, a] { run_test_support(ctx, *a); });
}

}  // namespace convfail::cli

namespace convfail::cli {

nlohmann::json matrix_summary_json(Db& db, const nlohmann::json& versions,
                                   const campaign::CampaignConfig& config) {
  const auto& src = config.sources;
  if (std::find(src.begin(), src.end(), "synthetic") == src.end() || !versions.is_object())
    return nullptr;
  auto text = [&](const char* k) {
    return versions.contains(k) && versions[k].is_string() ? versions[k].get<std::string>() : "";
  };
  campaign::SupportVersions v{text("torch"), text("onnx"), text("onnxruntime"),
                              campaign::kSyntheticGenerator};
  auto id = campaign::find_support_matrix(db, v);
  if (!id) return nullptr;
  std::vector<campaign::SupportCell> cells;
  for (const auto& c : campaign::load_support_cells(db, *id))
    if (c.opset == config.oracle.opset &&
        std::find(config.oracle.dtypes.begin(), config.oracle.dtypes.end(), c.dtype) !=
            config.oracle.dtypes.end())
      cells.push_back(c);
  if (cells.empty()) return nullptr;
  return {{"onnxruntime", v.onnxruntime},
          {"opset", config.oracle.opset},
          {"cells_per_class", campaign::cells_per_class(cells)}};
}

void print_matrix_summary(const nlohmann::json& summary, bool filtered) {
  if (summary.is_null()) {
    if (!filtered)
      std::printf("  support matrix: none stored for this release (convfail test support)\n");
    return;
  }
  std::string counts;
  for (const auto& cls : campaign::support_classes()) {
    long n = summary["cells_per_class"].value(cls, 0L);
    if (n) counts += " " + cls + "=" + std::to_string(n);
  }
  std::printf("  support matrix (onnxruntime %s, opset %d, %s):%s\n",
              terminal_safe(summary["onnxruntime"].get<std::string>()).c_str(),
              summary["opset"].get<int>(),
              filtered ? "the draw's filter" : "not applied: --unfiltered", counts.c_str());
}

}  // namespace convfail::cli
