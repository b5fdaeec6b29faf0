#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/error.h"
#include "core/json_util.h"
#include "core/text.h"
#include "repro/repro_command.h"
#include "repro/runtimes.h"

namespace convfail::cli {

namespace {

// `runtimes list`.
void add_runtimes_list(CLI::App* cmd) {
  struct ListArgs {
    bool available = false, json = false;
  };
  auto la = std::make_shared<ListArgs>();
  auto* list = cmd->add_subcommand("list", "installed releases (and with --available, npm's)");
  list->add_flag("--available", la->available,
                 "also list the releases the npm registry serves (development builds left out)");
  list->add_flag("--json", la->json, "print JSON");
  list->callback([la] {
    repro::RuntimeCache cache;
    auto installed = cache.list();
    const std::string pinned = repro::pinned_runtime_version();
    std::vector<std::string> available;
    if (la->available) available = cache.available();
    if (la->json) {
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& r : installed)
        rows.push_back({{"version", r.version},
                        {"dir", r.dir},
                        {"integrity", r.integrity},
                        {"failed", r.failed},
                        {"error", r.error}});
      nlohmann::json j = {{"cache", cache.dir()}, {"installed", rows}};
      j["pinned"] = pinned.empty() ? nlohmann::json() : nlohmann::json(pinned);
      if (la->available) j["available"] = available;
      std::cout << json_text(j) << "\n";
      return;
    }
    std::cout << "cache " << terminal_safe(cache.dir()) << "\n";
    if (!pinned.empty())
      std::cout << terminal_safe(pinned)
                << "  pinned: the runner's own onnxruntime-node (the default of every command)\n";
    if (installed.empty())
      std::cout << "no release installed in the cache (convfail runtimes install VERSION)\n";
    for (const auto& r : installed) {
      if (r.failed)
        std::cout << terminal_safe(r.version) << "  install failed: " << terminal_safe(r.error)
                  << "\n";
      else
        std::cout << terminal_safe(r.version) << "  " << terminal_safe(r.integrity) << "\n";
    }
    if (la->available) {
      std::cout << "npm serves " << available.size() << ":";
      for (const auto& v : available) std::cout << " " << terminal_safe(v);
      std::cout << "\n";
    }
  });
}

// `runtimes install`.
void add_runtimes_install(CLI::App* cmd) {
  struct InstallArgs {
    std::vector<std::string> versions;
    double timeout = 600;
  };
  auto ia = std::make_shared<InstallArgs>();
  auto* install = cmd->add_subcommand("install", "install onnxruntime-node releases");
  install->add_option("VERSION", ia->versions, "one or more versions, e.g. 1.21.0")->required();
  install->add_option("--timeout", ia->timeout, "seconds per npm install")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 86400.0));
  install->callback([ia] {
    for (const auto& v : ia->versions)
      if (!repro::valid_runtime_version(v))
        throw UsageError("not an onnxruntime-node version: '" + v + "' (e.g. 1.21.0)");
    repro::NpmOptions npm;
    npm.timeout_seconds = ia->timeout;
    repro::RuntimeCache cache(repro::default_runtime_cache(), npm);
    int failed = 0;
    for (const auto& v : ia->versions) {
      auto r = cache.install(v);
      if (r.ok) {
        std::cout << terminal_safe(v) << "  " << (r.already ? "already installed" : "installed")
                  << "  " << terminal_safe(r.dir) << "\n";
      } else {
        if (ia->versions.size() == 1) throw UserError("runtimes install " + v + ": " + r.error);
        ++failed;
        std::cerr << "runtimes install " << terminal_safe(v) << ": " << terminal_safe(r.error)
                  << "\n";
      }
    }
    if (failed)
      throw UserError(std::to_string(failed) + " of " + std::to_string(ia->versions.size()) +
                      " releases failed to install");
  });
}

// `runtimes prune`.
void add_runtimes_prune(CLI::App* cmd) {
  auto keep = std::make_shared<std::vector<std::string>>();
  auto* prune = cmd->add_subcommand(
      "prune", "remove installed releases (all but --keep), failed and partial installs");
  prune->add_option("--keep", *keep, "a version to keep (repeatable)");
  prune->callback([keep] {
    repro::RuntimeCache cache;
    auto removed = cache.prune(*keep);
    std::cout << "removed " << removed.size();
    for (const auto& r : removed) std::cout << " " << terminal_safe(r);
    std::cout << "\n";
  });
}

}  // namespace

void add_runtimes_command(CLI::App* cmd, Context& /*ctx*/) {
  cmd->require_subcommand(1);
  cmd->footer(
      "onnxruntime-node releases besides the pinned one (exec/runner/package.json), for\n"
      "`reproduce --ort VERSION` and `bisect`. Each version is installed once into\n"
      "$XDG_CACHE_HOME/convfail/ort/VERSION (else ~/.cache/convfail/ort; $CONVFAIL_ORT_CACHE\n"
      "overrides) by `npm install --ignore-scripts` with a package-lock.json of its own; npm\n"
      "checks each tarball's sha512 integrity, convfail that the lock records one for every\n"
      "package, that the installed version is VERSION and that it ships a linux native library\n"
      "(releases before 1.14 download theirs in an install script and fail to install). The\n"
      "npm registry is the one npm is configured with (npm_config_registry).");
  add_runtimes_list(cmd);
  add_runtimes_install(cmd);
  add_runtimes_prune(cmd);
}

}  // namespace convfail::cli
