#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/error.h"
#include "core/issue_ref.h"
#include "core/json_util.h"
#include "core/text.h"
#include "repro/artifact_list.h"
#include "repro/artifact_scan.h"
#include "repro/fetch.h"

namespace convfail::cli {

namespace {

// The stored id of ISSUE when one is given (either reference form), else every issue.
std::optional<std::int64_t> resolve_issue(Db& db, const std::string& ref) {
  if (ref.empty()) return std::nullopt;
  return require_issue(db, parse_issue_ref(ref));
}

// "1.5 MB" and the like; "-" when unknown.
std::string human_size(const std::optional<std::int64_t>& bytes) {
  if (!bytes) return "-";
  static const char* const units[] = {"B", "KB", "MB", "GB", "TB"};
  double v = static_cast<double>(*bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

void add_artifacts_list(CLI::App* cmd, Context& ctx) {
  auto* list =
      cmd->add_subcommand("list", "the stored artifacts, with fetch status, size and hash");
  list->footer(
      "One line per stored artifact (found by `artifacts scan`), by issue: its id, issue, kind,\n"
      "fetch status (- when not fetched yet, ok, error:<why>, skipped:<why>), size, the first\n"
      "12 hex digits of its SHA-256, and its URL (scripts: where and how many lines). Then the\n"
      "totals. --json prints every field, the whole hash and the local path included.");
  struct ListArgs {
    std::string issue, kind;
    bool json = false;
  };
  auto la = std::make_shared<ListArgs>();
  list->add_option("ISSUE", la->issue, "only this issue: OWNER/REPO#N or its URL");
  list->add_option("--kind", la->kind, "only this kind: model, archive, script or external_link");
  list->add_flag("--json", la->json, "print the artifacts as JSON");
  list->callback([&ctx, la] {
    Db& db = ctx.read_db();
    std::vector<repro::StoredArtifact> all = repro::list_artifacts(
        db, resolve_issue(db, la->issue),
        la->kind.empty() ? std::nullopt : std::optional<std::string>(la->kind));
    auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    if (la->json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& a : all)
        out.push_back({{"id", a.id},
                       {"issue", a.issue},
                       {"kind", a.kind},
                       {"source_field", a.source_field},
                       {"url", opt(a.url)},
                       {"code_lines", a.kind == "script" ? nlohmann::json(a.code_lines) : nullptr},
                       {"fetch_status", opt(a.fetch_status)},
                       {"size_bytes", opt(a.size_bytes)},
                       {"sha256", opt(a.sha256)},
                       {"local_path", opt(a.local_path)},
                       {"found_at", a.found_at}});
      std::cout << json_text(out, 2) << "\n";
      return;
    }
    std::int64_t fetched = 0, bytes = 0;
    auto row = [](const std::string& id, const std::string& issue, const std::string& kind,
                  const std::string& status, const std::string& size, const std::string& sha,
                  const std::string& what) {
      std::ostringstream line;
      line << std::right << std::setw(6) << id << "  " << std::left << std::setw(28) << issue << " "
           << std::setw(13) << kind << " " << std::setw(10) << status << " " << std::right
           << std::setw(9) << size << "  " << std::left << std::setw(12) << sha << "  " << what;
      std::cout << line.str() << "\n";
    };
    row("ID", "ISSUE", "KIND", "STATUS", "SIZE", "SHA256", "URL / CODE");
    for (const auto& a : all) {
      std::string status = a.fetch_status.value_or("-");
      if (status.size() > 10) status = status.substr(0, 9) + "~";
      std::string what = a.url ? *a.url : a.source_field + ", " + count_noun(a.code_lines, "line");
      if (a.fetch_status == std::string("ok")) ++fetched;
      if (a.fetch_status == std::string("ok") && a.size_bytes) bytes += *a.size_bytes;
      row(std::to_string(a.id), terminal_safe(a.issue), a.kind, terminal_safe(status),
          human_size(a.size_bytes), a.sha256 ? terminal_safe(a.sha256->substr(0, 12)) : "-",
          terminal_safe(what));
    }
    std::cout << count_noun(static_cast<std::int64_t>(all.size()), "artifact") << ", " << fetched
              << " fetched (" << human_size(bytes) << ")\n";
  });
}

// `artifacts scan`.
void add_artifacts_scan(CLI::App* cmd, Context& ctx) {
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
}

// `artifacts fetch`.
void add_artifacts_fetch(CLI::App* cmd, Context& ctx) {
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

}  // namespace

void add_artifacts_command(CLI::App* cmd, Context& ctx) {
  cmd->require_subcommand(1);
  add_artifacts_list(cmd, ctx);
  add_artifacts_scan(cmd, ctx);
  add_artifacts_fetch(cmd, ctx);
}

}  // namespace convfail::cli
