// build/fake-github: the test suite's fake GitHub API as a standalone server on 127.0.0.1.
// Prints its URL on stdout, then serves until SIGINT or SIGTERM.
#include <signal.h>

#include <iostream>

#include <CLI/CLI.hpp>

#include "tests/fake_github/fake_github.h"

int main(int argc, char** argv) {
  convfail::fake::FakeGitHubOptions o;
  CLI::App app{
      "A fake GitHub REST API (issues, comments, timelines) on 127.0.0.1 for trying\n"
      "and testing `convfail crawl`. POST /_admin/change?issues=1,2 edits issues.",
      "fake-github"};
  app.add_option("--port", o.port, "port on 127.0.0.1 (0: a free one)")->capture_default_str();
  app.add_option("--issues", o.issues, "number of issues and pull requests")->capture_default_str();
  app.add_option("--latency-ms", o.latency_ms, "delay per request")->capture_default_str();
  app.add_option("--fault-rate", o.fault_rate,
                 "probability of a fault (500, 502, cut connection, truncated JSON, 403 "
                 "Retry-After) on a URL's first two requests")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--seed", o.seed, "fault seed (data does not depend on it)")
      ->capture_default_str();
  app.add_option("--rate-limit", o.rate_limit, "full responses per window (0: unlimited)")
      ->capture_default_str();
  app.add_option("--rate-window", o.rate_window_s, "rate-limit window in seconds")
      ->capture_default_str();
  app.add_option("--retry-after", o.retry_after_s, "Retry-After of secondary-limit faults")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  // Block the stop signals in every thread; the main thread waits for them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  try {
    convfail::fake::FakeGitHub server(o);
    std::cout << server.url() << std::endl;
    int sig = 0;
    sigwait(&set, &sig);
    server.stop();
  } catch (const std::exception& e) {
    std::cerr << "fake-github: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
