#include <iostream>
#include <memory>
#include <regex>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/error.h"
#include "core/issue_store.h"
#include "repro/artifact_scan.h"
#include "repro/fetch.h"

namespace convfail::cli {

namespace {

std::optional<std::int64_t> resolve_issue(Db& db, const std::string& ref) {
  if (ref.empty()) return std::nullopt;
  static const std::regex kRef(R"(([\w.-]+/[\w.-]+)#(\d+))");
  std::smatch m;
  if (!std::regex_match(ref, m, kRef))
    throw UsageError("--issue must be OWNER/REPO#N, got '" + ref + "'");
  IssueStore store(db);
  auto id = store.find_issue(m[1], std::stoll(m[2]));
  if (!id) throw UserError("issue " + ref + " is not in the database");
  return id;
}

}  // namespace

void add_artifacts_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("artifacts", "Find and fetch the models attached to issues");
  cmd->require_subcommand(1);

  auto* scan = cmd->add_subcommand(
      "scan",
      "Find artifacts in issue bodies and comments: links to model files (.onnx .pb .tflite .h5\n"
      ".pt .pth) and archives (.zip .tar.gz .tgz), GitHub attachment URLs, links to file hosts\n"
      "(recorded, never fetched) and code blocks that export or build a model (kind script).\n"
      "Rescanning adds only new artifacts.");
  struct ScanArgs {
    std::string issue;
    bool json = false;
  };
  auto sa = std::make_shared<ScanArgs>();
  scan->add_option("--issue", sa->issue, "only OWNER/REPO#N");
  scan->add_flag("--json", sa->json, "print the counts as JSON");
  scan->callback([&ctx, sa] {
    auto c = repro::scan_issues(ctx.db(), resolve_issue(ctx.db(), sa->issue));
    if (sa->json)
      std::cout << nlohmann::json{{"issues", c.issues},
                                  {"found", c.found},
                                  {"inserted", c.inserted}}
                       .dump()
                << "\n";
    else
      std::cout << "scanned " << c.issues << " issue(s): " << c.found << " artifact(s) found, "
                << c.inserted << " new\n";
  });

  auto* fetch = cmd->add_subcommand(
      "fetch",
      "Download model and archive artifacts not fetched yet (libcurl, http/https only) into\n"
      "convfail-data/artifacts/<sha256> beside the database; archives are unpacked into\n"
      "<sha256>.d/ (regular files only, no absolute paths or '..', size and file-count caps).\n"
      "Failures are recorded per artifact as fetch_status 'error:<why>'.");
  struct FetchArgs {
    std::string issue;
    repro::FetchOptions options;
    std::string store;
    bool retry_failed = false;
    bool json = false;
  };
  auto fa = std::make_shared<FetchArgs>();
  fetch->add_option("--issue", fa->issue, "only OWNER/REPO#N");
  fetch->add_option("--max-bytes", fa->options.max_bytes, "size cap per download (bytes)")
      ->capture_default_str();
  fetch->add_option("--max-redirects", fa->options.max_redirects, "redirect limit")
      ->capture_default_str();
  fetch->add_option("--timeout", fa->options.timeout_seconds, "seconds per transfer")
      ->capture_default_str();
  fetch->add_option("--retries", fa->options.retries, "extra attempts after a transient failure")
      ->capture_default_str()
      ->check(CLI::Range(0, 10));
  fetch
      ->add_option("--max-unpacked-bytes", fa->options.max_unpacked_bytes,
                   "cap on an archive's unpacked size")
      ->capture_default_str();
  fetch->add_option("--max-files", fa->options.max_unpacked_files, "cap on an archive's file count")
      ->capture_default_str();
  fetch->add_option("--store", fa->store,
                    "artifact folder (default: convfail-data/artifacts beside the database)");
  fetch->add_flag("--retry-failed", fa->retry_failed,
                  "also retry artifacts whose fetch failed before");
  fetch->add_flag("--json", fa->json, "print the counts as JSON");
  fetch->callback([&ctx, fa] {
    std::string store = fa->store.empty() ? repro::artifact_store_for(ctx.db_path) : fa->store;
    auto c =
        repro::fetch_artifacts(ctx.db(), store, fa->options, resolve_issue(ctx.db(), fa->issue),
                               fa->retry_failed, Context::stderr_is_tty());
    if (fa->json)
      std::cout << nlohmann::json{{"attempted", c.attempted},
                                  {"ok", c.ok},
                                  {"failed", c.failed},
                                  {"unpacked", c.unpacked},
                                  {"store", store}}
                       .dump()
                << "\n";
    else
      std::cout << "fetched " << c.ok << " of " << c.attempted << " artifact(s) (" << c.failed
                << " failed, " << c.unpacked << " archive(s) unpacked) into " << store << "\n";
  });
}

}  // namespace convfail::cli
