#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "core/taxonomy.h"
#include "reports/opsets.h"
#include "reports/opsets_render.h"

namespace convfail::cli {

void add_opsets_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "The evolution of the default ONNX operator set (ai.onnx), from libonnx's schema registry:\n"
      "per opset version the operators added, updated (new version; deprecations included) and\n"
      "available in total. With --issues, the stored issues binned by the opset release period\n"
      "they were opened in, and the Spearman correlation of operator changes and issue counts.");
  struct Args {
    bool json = false;
    bool issues = false;
    bool names = false;
    std::vector<std::string> repos;
    std::string releases;
  };
  auto args = std::make_shared<Args>();
  cmd->add_flag("--json", args->json, "print JSON (with operator names)");
  auto* issues =
      cmd->add_flag("--issues", args->issues, "bin the stored issues by opset release period");
  cmd->add_flag("--names", args->names, "list the operators added and updated at each version");
  cmd->add_option("--repo", args->repos, "with --issues: only issues of OWNER/NAME (repeatable)")
      ->allow_extra_args(false)
      ->needs(issues);
  cmd->add_option("--releases", args->releases,
                  "opset release dates (JSON); default DATA_DIR/opset_releases.json")
      ->needs(issues);
  cmd->callback([&ctx, args] {
    auto history = reports::opset_history();
    std::optional<reports::OpsetIssueBins> bins;
    if (args->issues) {
      std::string path =
          args->releases.empty() ? ctx.data_dir + "/opset_releases.json" : args->releases;
      bins = reports::bin_issues_by_opset(ctx.read_db(), Taxonomy::load(ctx.data_dir), history,
                                          reports::load_opset_releases(path), args->repos);
    }
    std::cout << (args->json ? reports::render_opsets_json(history, bins)
                             : reports::render_opsets_text(history, bins, args->names));
  });
}

}  // namespace convfail::cli
