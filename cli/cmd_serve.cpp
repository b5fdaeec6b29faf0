#include <csignal>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include <pthread.h>
#include <sys/resource.h>

#include "cli/commands.h"
#include "core/error.h"
#include "core/taxonomy.h"
#include "core/text.h"
#include "crawler/token.h"
#include "labeling/team_members.h"
#include "web/server.h"

namespace convfail::cli {

namespace {

// The access token: the first line of FILE, trimmed (the same rules as a GitHub token file:
// no whitespace or control characters inside).
std::string read_access_token(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) throw UserError(file + ": cannot read the access token");
  std::string token = trim(line);
  if (token.size() < 16) throw UserError(file + ": the access token needs 16 characters or more");
  std::string problem = crawler::token_problem(token);
  if (!problem.empty()) throw UserError(file + ": " + problem);
  return token;
}

const char* const kServeHelp =
    "Serve the web workbench on http://HOST:PORT/: browse and search issues, see the\n"
    "classifier's evidence highlighted, label with the keyboard (each answer is one row of\n"
    "the append-only history, written at once), adjudicate, compare raters (kappa with CI)\n"
    "and download reports. The JSON API is described in docs/web.md.\n"
    "It listens on loopback by default. Any other address needs an access token: from\n"
    "--token-file, or a fresh one printed once at start; every request must then carry it\n"
    "(the printed link sets a cookie). Raters choose their name when they open the page.\n"
    "A shared token lets whoever holds it label under any name: for a team, give each\n"
    "person a token of their own (convfail team add NAME --role ROLE). While the database\n"
    "has active team members, serve answers only their tokens (on any address, without\n"
    "--token-file), each token alone names its person, and annotators label blind on every\n"
    "route (see convfail team --help). Restart serve after the first `team add`.\n"
    "Stop with Ctrl-C.";

struct ServeArgs {
  web::ServerOptions options;
  std::string token_file;
  std::size_t max_body = 64 * 1024;
};

// Reads the token or the team, binds, prints where to open the page, serves until a signal.
void run_serve(Context& ctx, const ServeArgs* args) {
  web::ServerOptions o = args->options;
  o.max_body = args->max_body;
  // Every connection is a file descriptor: take the hard limit (1024 is the usual soft one).
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  // Migrate (or check, read-only) once here; every request then opens its own connection.
  Db& db = o.readonly ? ctx.read_db() : ctx.db();
  o.team = labeling::team_active(db);
  bool generated = false;
  if (o.team && !args->token_file.empty()) {
    throw UserError(
        "--token-file: this database has a team (convfail team list), whose members sign in "
        "with their own tokens; a shared token would let anyone act as anyone: drop "
        "--token-file");
  } else if (!args->token_file.empty()) {
    o.token = read_access_token(args->token_file);
  } else if (!o.team && !web::is_loopback_host(o.host)) {
    o.token = web::generate_token();
    generated = true;
  }
  o.db_path = db.path();
  o.rules_dir = ctx.data_dir + "/rules";
  Taxonomy taxonomy = Taxonomy::load(ctx.data_dir);

  // SIGINT/SIGTERM go to one waiting thread that stops the server (blocked everywhere else:
  // the worker threads inherit this mask).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  web::Server server(o, std::move(taxonomy));
  int port = server.bind();
  std::string host = o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host;
  std::string url = "http://" + host + ":" + std::to_string(port) + "/";
  std::cout << "convfail serve: listening on " << url << (o.readonly ? " (read-only)" : "") << "\n";
  if (generated) std::cout << "access token (shown once): " << o.token << "\n";
  if (!o.token.empty()) {
    std::cout << "open: " << url << "?token=" << (generated ? o.token : "<token>") << "\n";
    std::cout << "one shared token: whoever holds it may label under any name; give each "
                 "person their own with `convfail team add NAME`\n";
  }
  if (o.team) std::cout << "team: each member opens " << url << "?token=<their token>\n";
  std::cout << std::flush;

  std::thread waiter([&server, stop_signals] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    server.stop();
  });
  server.listen();
  // listen() returned (stopped or failed): wake the waiter if it is still waiting.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  // The signals stay blocked: a second SIGTERM (`timeout` sends one to the process and one to
  // its group) must not kill the process on its way out.
  std::cerr << "convfail serve: stopped\n";
}

}  // namespace

void add_serve_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(kServeHelp);

  auto args = std::make_shared<ServeArgs>();
  cmd->add_option("--host", args->options.host, "address to listen on")->capture_default_str();
  cmd->add_option("--port", args->options.port, "TCP port (0: any free port, printed)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_flag("--readonly", args->options.readonly,
                "open the database read-only: browse and compare, no labeling");
  cmd->add_option("--token-file", args->token_file,
                  "file whose first line is the access token every request must carry")
      ->check(CLI::ExistingFile);
  cmd->add_option("--allow-host", args->options.allowed_hosts,
                  "a host name the page may be opened by, besides localhost, 127.x.y.z and [::1] "
                  "(repeatable; other Host headers get 403, which keeps DNS rebinding out)")
      ->take_all();
  cmd->add_option("--threads", args->options.threads,
                  "threads answering requests (open connections do not hold one)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--max-connections", args->options.max_connections,
                  "open connections at most (more are refused; each needs a file descriptor)")
      ->check(CLI::Range(16u, 100000u))
      ->capture_default_str();
  cmd->add_option("--max-body", args->max_body, "largest request body in bytes (larger: 413)")
      ->check(CLI::Range(std::size_t{1024}, std::size_t{16} << 20))
      ->capture_default_str();
  cmd->callback([&ctx, args] { run_serve(ctx, args.get()); });
}

}  // namespace convfail::cli
