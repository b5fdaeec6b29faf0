#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/error.h"
#include "core/issue_ref.h"
#include "repro/artifact_scan.h"
#include "repro/fetch.h"

namespace convfail::cli {

namespace {

// The stored id of ISSUE when one is given (either reference form), else every issue.
std::optional<std::int64_t> resolve_issue(Db& db, const std::string& ref) {
  if (ref.empty()) return std::nullopt;
  return require_issue(db, parse_issue_ref(ref));
}

}  // namespace

void add_artifacts_command(CLI::App* cmd, Context& ctx) {
  cmd->require_subcommand(1);

  auto* scan = cmd->add_subcommand("scan", "find artifacts in issue bodies and comments");
  scan->footer(
      "Find artifacts in issue bodies and comments: links to model files (.onnx .pb .tflite .h5\n"
      ".pt .pth) and archives (.zip .tar.gz .tgz), GitHub attachment URLs, links to file hosts\n"
      "(recorded, never fetched) and code blocks that export or build a model (kind script).\n"
      "Rescanning adds only new artifacts.");
  struct ScanArgs {
    std::string issue;
    bool json = false;
  };
  auto sa = std::make_shared<ScanArgs>();
  scan->add_option("ISSUE", sa->issue, "only this issue: OWNER/REPO#N or its URL");
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
      std::cout << "scan: " << c.issues << " issues, " << c.found << " found, " << c.inserted
                << " inserted\n";
  });

  auto* fetch = cmd->add_subcommand("fetch", "download the model and archive artifacts");
  fetch->footer(
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
  fetch->add_option("ISSUE", fa->issue, "only this issue: OWNER/REPO#N or its URL");
  fetch->add_option("--max-bytes", fa->options.max_bytes, "size cap per download (bytes)")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  fetch->add_option("--max-redirects", fa->options.max_redirects, "redirect limit")
      ->capture_default_str()
      ->check(CLI::Range(0, 50));
  fetch->add_option("--timeout", fa->options.timeout_seconds, "seconds per transfer")
      ->capture_default_str()
      ->check(CLI::Range(1L, 86400L));
  fetch->add_option("--retries", fa->options.retries, "extra attempts after a transient failure")
      ->capture_default_str()
      ->check(CLI::Range(0, 10));
  fetch
      ->add_option("--max-unpacked-bytes", fa->options.max_unpacked_bytes,
                   "cap on an archive's unpacked size")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 44));
  fetch->add_option("--max-files", fa->options.max_unpacked_files, "cap on an archive's file count")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 24));
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
      std::cout << "fetch: " << c.attempted << " attempted, " << c.ok << " ok, " << c.failed
                << " failed, " << c.unpacked << " unpacked; store " << store << "\n";
  });
}

}  // namespace convfail::cli
