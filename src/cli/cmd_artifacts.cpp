#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/error.h"
#include "core/issue_ref.h"
#include "core/json_util.h"
#include "core/text.h"
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
      std::cout << json_text({{"issues", c.issues}, {"found", c.found}, {"inserted", c.inserted}},
                             2)
                << "\n";
    else
      std::cout << "scan: " << count_noun(c.issues, "issue") << ", " << c.found << " found, "
                << c.inserted << " inserted\n";
  });

  auto* fetch = cmd->add_subcommand("fetch", "download the model and archive artifacts");
  fetch->footer(
      "Download model and archive artifacts not fetched yet (libcurl, http/https only) into\n"
      "convfail-data/artifacts/<sha256> beside the database; archives are unpacked into\n"
      "<sha256>.d/ (regular files only, no absolute paths or '..', size and file-count caps).\n"
      "The same bytes from several URLs are stored once and shared by their artifacts.\n"
      "Loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), shared (100.64/10), link-local\n"
      "(169.254/16, fe80::/10), multicast and unspecified addresses are refused, checked after "
      "DNS\n"
      "resolution on every connection including redirects, unless --allow-private-hosts.\n"
      "A failure (download, unpack, filesystem) is that artifact's alone: it is recorded as\n"
      "fetch_status 'error:<why>', printed on stderr as one line naming the URL, and the rest\n"
      "of the batch goes on.\n"
      "Exit status: 0 when every attempted artifact was fetched (or none was due), 1 when any\n"
      "failed (after the summary), 2 for bad arguments.");
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
  fetch
      ->add_option("--connect-timeout", fa->options.connect_timeout_seconds,
                   "seconds to establish a connection")
      ->capture_default_str()
      ->check(CLI::Range(1L, 3600L));
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
  fetch->add_flag("--allow-private-hosts", fa->options.allow_private_hosts,
                  "also download from loopback, private, link-local and other non-public "
                  "addresses (off: refused, a defence against links that reach internal services)");
  fetch->add_flag("--retry-failed", fa->retry_failed,
                  "also retry artifacts whose fetch failed before");
  fetch->add_flag("--json", fa->json, "print the counts as JSON");
  fetch->callback([&ctx, fa] {
    std::string store = fa->store.empty() ? repro::artifact_store_for(ctx.db_path) : fa->store;
    auto c =
        repro::fetch_artifacts(ctx.db(), store, fa->options, resolve_issue(ctx.db(), fa->issue),
                               fa->retry_failed, Context::stderr_is_tty());
    for (const auto& f : c.failures)
      std::cerr << "artifact " << f.id << " " << terminal_safe(f.url) << ": "
                << terminal_safe(f.error) << "\n";
    if (fa->json) {
      nlohmann::json failures = nlohmann::json::array();
      for (const auto& f : c.failures)
        failures.push_back({{"id", f.id}, {"url", f.url}, {"error", f.error}});
      std::cout << json_text({{"attempted", c.attempted},
                              {"ok", c.ok},
                              {"failed", c.failed},
                              {"unpacked", c.unpacked},
                              {"shared", c.shared},
                              {"store", store},
                              {"failures", failures}})
                << "\n";
    } else {
      std::cout << "fetch: " << c.attempted << " attempted, " << c.ok << " ok (" << c.shared
                << " already in the store), " << c.failed << " failed, " << c.unpacked
                << " unpacked; store " << terminal_safe(store) << "\n";
    }
    if (c.failed)
      throw UserError(std::to_string(c.failed) + " of " + std::to_string(c.attempted) +
                      " artifacts failed (fetch_status 'error:...'; --retry-failed retries them)");
  });
}

}  // namespace convfail::cli
