// convfail: mine, classify and re-execute failure reports of DL model converters.
#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "core/resources.h"
#include "core/text.h"
#include "crawler/token.h"
#include "repro/reproduce.h"

using namespace convfail;
using namespace convfail::cli;

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// A mistyped command: the command path that was understood ("convfail", "convfail labels")
// and the word where it went wrong.
struct UnknownCommand {
  CLI::App* parent = nullptr;
  std::string path;
  std::string word;
};

// The first word that is neither an option nor a global option's value, when it names no
// command: "convfail frobnicate" should say so, not "A subcommand is required". A command with
// subcommands of its own (labels, test, artifacts, runtimes) is followed the same way:
// "convfail labels exprot".
std::optional<UnknownCommand> unknown_command(CLI::App& app, int argc, char** argv) {
  CLI::App* at = &app;
  std::string path = "convfail";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--db" || a == "--data-dir" || a == "--lock-wait") {
      ++i;  // its value
      continue;
    }
    if (a.empty() || a[0] == '-') continue;
    auto known = at->get_subcommands([&a](CLI::App* sub) { return sub->check_name(a); });
    if (known.empty()) return UnknownCommand{at, path, a};
    at = known.front();
    path += " " + at->get_name();
    if (at->get_subcommands({}).empty()) return std::nullopt;  // a command: the rest is its own
  }
  return std::nullopt;
}

// Levenshtein distance of two short words (command names).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The command closest to a mistyped one (at most two edits, or a prefix), or "".
std::string closest_command(CLI::App& parent, const std::string& typed) {
  if (typed.size() > 64) return {};
  std::string best;
  std::size_t best_distance = 3;
  for (const CLI::App* sub : parent.get_subcommands({})) {
    const std::string& name = sub->get_name();
    std::size_t d = edit_distance(typed, name);
    if (typed.size() >= 3 && name.rfind(typed, 0) == 0) d = std::min<std::size_t>(d, 1);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  return best;
}

// The command a command line names (the deepest one its words reach) and the first "--name"
// neither that command nor one of its parents knows: "convfail init --dbb x.db" said no more
// than "The following arguments were not expected".
struct UnknownOption {
  std::string path;  // "convfail init"
  std::string option;
  std::string suggestion;  // the closest known "--name" (at most two edits, or a prefix), or ""
};

std::optional<UnknownOption> unknown_option(CLI::App& app, int argc, char** argv) {
  CLI::App* at = &app;
  std::string path = "convfail";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.empty() || a[0] != '-') {
      auto known = at->get_subcommands([&a](CLI::App* sub) { return sub->check_name(a); });
      if (!known.empty()) at = known.front(), path += " " + at->get_name();
    }
  }
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") break;
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
    a = a.substr(0, a.find('='));
    bool known = false;
    for (CLI::App* c = at; c && !known; c = c->get_parent())
      known = c->get_option_no_throw(a) != nullptr;
    if (known) continue;
    UnknownOption u{path, a, {}};
    std::size_t best = 3;
    for (CLI::App* c = at; c; c = c->get_parent())
      for (const CLI::Option* o : c->get_options())
        for (const std::string& name : o->get_lnames()) {
          std::size_t d = edit_distance(a.substr(2), name);
          if (a.size() >= 5 && name.rfind(a.substr(2), 0) == 0) d = std::min<std::size_t>(d, 1);
          if (d < best) best = d, u.suggestion = "--" + name;
        }
    return u;
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  // First: the token leaves the environment before anything could start a child process.
  crawler::take_github_token_from_env();
  // Past a file size limit (ulimit -f) a write fails with EFBIG, which SQLite and our writers
  // report as one line naming the file, instead of the process dying of SIGXFSZ without a word.
  std::signal(SIGXFSZ, SIG_IGN);
  // The internal checker child of `reproduce` (repro/reproduce.h); not a user command.
  if (int code = repro::check_model_main(argc, argv); code >= 0) return code;
  Context ctx;
  ctx.db_path = env_or("CONVFAIL_DB", "convfail.db");
  ctx.data_dir = default_data_dir();

  CLI::App app{
      "convfail mines, classifies and re-executes failure reports of deep-learning model\n"
      "converters (torch.onnx, tf2onnx, ...) after Jajal et al., ISSTA 2024.",
      "convfail"};
  app.set_version_flag("--version", std::string("convfail ") + CONVFAIL_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand
  app.add_option("--db", ctx.db_path, "SQLite database file (env CONVFAIL_DB)")
      ->capture_default_str();
  app.add_option("--lock-wait", ctx.lock_wait_s,
                 "seconds a write waits for another process's write lock (a batch job writes in "
                 "short transactions; serve's label posts wait up to 5 s, then answer 503)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  // No default shown: it is found at run time, beside the executable (core/resources.h).
  app.add_option("--data-dir", ctx.data_dir,
                 "folder with taxonomy.json and rules/ (env CONVFAIL_DATA_DIR; default: "
                 "share/convfail/data beside the executable)");

  add_commands(app, ctx);
  app.footer("Run 'convfail COMMAND --help' for the details of a command.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::optional<UnknownCommand> unknown = unknown_command(app, argc, argv);
    if (unknown) {
      std::cerr << unknown->path << ": unknown command '" << terminal_safe(unknown->word) << "'";
      std::string suggestion = closest_command(*unknown->parent, unknown->word);
      if (!suggestion.empty()) std::cerr << " (did you mean '" << suggestion << "'?)";
      std::cerr << "\n";
      std::cerr << "Run '" << unknown->path << " --help' for usage.\n";
      return 2;
    }
    if (std::optional<UnknownOption> option = unknown_option(app, argc, argv)) {
      std::cerr << option->path << ": unknown option '" << terminal_safe(option->option) << "'";
      if (!option->suggestion.empty())
        std::cerr << " (did you mean '" << option->suggestion << "'?)";
      std::cerr << "\nRun '" << option->path << " --help' for usage.\n";
      return 2;
    }
    std::cerr << "convfail: " << terminal_safe(e.what(), false, false) << "\n";
    std::cerr << "Run 'convfail --help' (or 'convfail COMMAND --help') for usage.\n";
    return 2;
  } catch (const Interrupted& e) {  // a caught signal stopped the job, which cleaned up
    std::cerr << "convfail: " << terminal_safe(e.what(), false, false) << "\n";
    return e.exit_code();
  } catch (const UsageError& e) {  // messages may quote outside text: escaped here, once
    std::cerr << "convfail: " << terminal_safe(e.what(), false, false) << "\n";
    return 2;
  } catch (const UserError& e) {
    std::cerr << "convfail: error: " << terminal_safe(e.what(), false, false) << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "convfail: internal error: " << terminal_safe(e.what(), false, false) << "\n";
    return 3;
  }
  return 0;
}
