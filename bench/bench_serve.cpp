// `convfail serve` under load: C concurrent loopback clients (keep-alive, one thread each)
// browsing and labeling an N-issue database for S seconds — 70% issue pages, 10% list pages, 20%
// label posts (each with a unique note, so each must add exactly one row). Prints requests/s,
// p50/p99 per kind, then counts the label rows: none may be lost or duplicated. Baseline, measured
// in the same run: the same issue page built by a direct call (web::issue_json), no HTTP.
// Goal: p99 < 100 ms for issue pages and label posts.
//
// Ends with the JSON line {"bench": "serve", "ratio": issue page p99 over HTTP / direct p99, ...};
// exits 1 when a request failed or a label row was lost or duplicated.
//
//   bench_serve [--issues 20000] [--clients 50] [--seconds 30] [--threads T] [--keep DIR]
//               [--quick]     (--quick: 300 issues, 4 clients, 2 s)
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/figures.h"
#include "core/importer.h"
#include "core/migrations.h"
#include "core/taxonomy.h"
#include "core/text.h"
#include "web/api.h"
#include "web/server.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

const char* kWords[] = {"export",  "onnx",    "opset",  "tensor",    "shape",    "node",
                        "graph",   "runtime", "error",  "model",     "symbolic", "dynamic",
                        "reshape", "gather",  "slice",  "transpose", "cast",     "traceback",
                        "fails",   "wrong",   "result", "inference", "session",  "kernel"};
const char* kRepos[] = {"pytorch/pytorch", "onnx/tensorflow-onnx", "PaddlePaddle/Paddle2ONNX",
                        "onnx/keras-onnx"};
const char* kSymptoms[] = {"crash", "wrong_model",   "bad_performance",
                           "hang",  "build_failure", "unreported"};

std::string words(std::mt19937& rng, int n) {
  std::uniform_int_distribution<std::size_t> pick(0, std::size(kWords) - 1);
  std::string out;
  for (int i = 0; i < n; ++i) out += (i ? " " : "") + std::string(kWords[pick(rng)]);
  return out;
}

double pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

struct Stats {
  std::vector<double> issue, list, post;  // milliseconds
  long errors = 0, posted_rows = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const bool quick = convfail::bench::quick_mode(argc, argv);
  int issues = quick ? 300 : 20000, clients = quick ? 4 : 50, seconds = quick ? 2 : 30, threads = 0;
  const int direct_pages = quick ? 200 : 2000, direct_posts = quick ? 50 : 500;
  std::string keep;
  for (int i = 1; i < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--quick") {
      --i;  // a flag: no value
      continue;
    }
    if (i + 1 >= argc) {
      std::cerr << "bench_serve: " << a << " needs a value\n";
      return 2;
    }
    if (a == "--issues")
      issues = std::atoi(argv[i + 1]);
    else if (a == "--clients")
      clients = std::atoi(argv[i + 1]);
    else if (a == "--seconds")
      seconds = std::atoi(argv[i + 1]);
    else if (a == "--threads")
      threads = std::atoi(argv[i + 1]);
    else if (a == "--keep")
      keep = argv[i + 1];
    else {
      std::cerr << "usage: bench_serve [--issues N] [--clients C] [--seconds S] [--threads T] "
                   "[--keep DIR] [--quick]\n";
      return 2;
    }
  }
  if (issues < 100 || clients < 1 || clients > 500 || seconds < 1 || seconds > 3600) {
    std::cerr << "bench_serve: --issues >= 100, --clients 1..500, --seconds 1..3600\n";
    return 2;
  }
  // Keep-alive connections each hold a worker thread: one per client, plus a few.
  if (threads <= 0) threads = clients + 4;

  fs::path dir = keep.empty()
                     ? fs::temp_directory_path() / ("bench_serve." + std::to_string(getpid()))
                     : fs::path(keep);
  fs::create_directories(dir);
  std::string db_path = (dir / "bench.db").string();
  fs::remove(db_path);
  {
    std::mt19937 rng(7);
    std::ofstream out(dir / "issues.jsonl");
    for (int n = 1; n <= issues; ++n) {
      nlohmann::json j = {{"repo", kRepos[n % 4]},
                          {"number", n},
                          {"title", words(rng, 8)},
                          {"body", words(rng, 120)},
                          {"state", n % 3 ? "closed" : "open"},
                          {"created_at", convfail::format_iso8601(1577836800 + n * 3600L)},
                          {"comments", {{{"author", "x"}, {"body", words(rng, 40)}}}}};
      out << j.dump() << "\n";
    }
  }
  auto t0 = Clock::now();
  {
    auto db = convfail::open_database(db_path);
    convfail::import_files(*db, {(dir / "issues.jsonl").string()});
  }
  std::printf("setup: %d issues imported in %.1f s\n", issues,
              std::chrono::duration<double>(Clock::now() - t0).count());

  convfail::Taxonomy tax = convfail::Taxonomy::load(std::string(CONVFAIL_SOURCE_DIR) + "/data");

  // Baseline: the issue page JSON by a direct call.
  std::vector<double> direct;
  {
    convfail::Db db(db_path);
    std::mt19937 rng(3);
    std::uniform_int_distribution<int> pick(1, issues);
    for (int i = 0; i < direct_pages; ++i) {
      int n = pick(rng);
      auto s = Clock::now();
      convfail::web::issue_json(db, tax, kRepos[n % 4], std::to_string(n), "", true);
      direct.push_back(std::chrono::duration<double, std::milli>(Clock::now() - s).count());
    }
  }

  // Baseline for posts: one label row by a direct call (web::post_label), one writer.
  std::vector<double> direct_post;
  {
    convfail::Db db(db_path);
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> pick(1, issues), sym(0, 5);
    for (int i = 0; i < direct_posts; ++i) {
      int n = pick(rng);
      nlohmann::json body = {{"repo", kRepos[n % 4]},
                             {"number", n},
                             {"dimension", "symptom"},
                             {"value", kSymptoms[sym(rng)]},
                             {"note", "d" + std::to_string(i)}};
      auto s = Clock::now();
      convfail::web::post_label(db, tax, "baseline", body);
      direct_post.push_back(std::chrono::duration<double, std::milli>(Clock::now() - s).count());
    }
  }

  convfail::web::ServerOptions o;
  o.db_path = db_path;
  o.port = 0;
  o.threads = threads;
  convfail::web::Server server(o, tax);
  int port = server.bind();
  std::thread serving([&] { server.listen(); });

  std::atomic<bool> stop{false};
  std::vector<Stats> stats(static_cast<std::size_t>(clients));
  std::vector<std::thread> workers;
  auto start = Clock::now();
  for (int c = 0; c < clients; ++c) {
    workers.emplace_back([&, c] {
      Stats& st = stats[static_cast<std::size_t>(c)];
      httplib::Client cli("127.0.0.1", port);
      cli.set_keep_alive(true);
      cli.set_tcp_nodelay(true);
      cli.set_read_timeout(30, 0);
      std::mt19937 rng(static_cast<unsigned>(1000 + c));
      std::uniform_int_distribution<int> pick(1, issues), kind(0, 99), sym(0, 5);
      httplib::Headers who = {{"X-Convfail-Annotator", "rater" + std::to_string(c % 5)}};
      long seq = 0;
      while (!stop.load()) {
        int k = kind(rng), n = pick(rng);
        auto s = Clock::now();
        httplib::Result r = [&] {
          if (k < 70)
            return cli.Get("/api/issues/" + std::string(kRepos[n % 4]) + "/" + std::to_string(n));
          if (k < 80) return cli.Get("/api/issues?per_page=25&page=" + std::to_string(n % 40 + 1));
          nlohmann::json body = {{"repo", kRepos[n % 4]},
                                 {"number", n},
                                 {"dimension", "symptom"},
                                 {"value", kSymptoms[sym(rng)]},
                                 {"note", "b" + std::to_string(c) + "-" + std::to_string(seq++)}};
          return cli.Post("/api/labels", who, body.dump(), "application/json");
        }();
        double ms = std::chrono::duration<double, std::milli>(Clock::now() - s).count();
        if (!r || (r->status != 200 && r->status != 201)) {
          ++st.errors;
          if (st.errors <= 3)
            std::fprintf(stderr, "client %d, %s request %zu after %.1f ms: %s\n", c,
                         k < 70   ? "issue"
                         : k < 80 ? "list"
                                  : "post",
                         st.issue.size() + st.list.size() + st.post.size(), ms,
                         r ? (std::to_string(r->status) + " " + r->body.substr(0, 200)).c_str()
                           : httplib::to_string(r.error()).c_str());
          continue;
        }
        if (k < 70)
          st.issue.push_back(ms);
        else if (k < 80)
          st.list.push_back(ms);
        else {
          st.post.push_back(ms);
          st.posted_rows += nlohmann::json::parse(r->body).value("written", 0L);
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  stop = true;
  for (auto& w : workers) w.join();
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  server.stop();
  serving.join();

  Stats all;
  for (const Stats& s : stats) {
    all.issue.insert(all.issue.end(), s.issue.begin(), s.issue.end());
    all.list.insert(all.list.end(), s.list.begin(), s.list.end());
    all.post.insert(all.post.end(), s.post.begin(), s.post.end());
    all.errors += s.errors;
    all.posted_rows += s.posted_rows;
  }
  long requests = static_cast<long>(all.issue.size() + all.list.size() + all.post.size());
  convfail::Db db(db_path);
  long rows = db.scalar(
      "SELECT count(*) FROM manual_labels WHERE source = 'web' AND annotator != 'baseline'");
  long distinct = db.scalar(
      "SELECT count(DISTINCT note) FROM manual_labels WHERE source = 'web' AND annotator != "
      "'baseline'");
  long lost = std::max(0L, all.posted_rows - rows);
  long duplicated = rows - distinct;

  std::printf("load: %d clients, %d server threads, %.1f s, %d issues\n", clients, threads, elapsed,
              issues);
  std::printf("requests: %ld (%.0f req/s), errors %ld\n", requests,
              static_cast<double>(requests) / elapsed, all.errors);
  std::printf("issue page : n=%zu p50 %.1f ms  p99 %.1f ms\n", all.issue.size(),
              pct(all.issue, 0.5), pct(all.issue, 0.99));
  std::printf("list page  : n=%zu p50 %.1f ms  p99 %.1f ms\n", all.list.size(), pct(all.list, 0.5),
              pct(all.list, 0.99));
  std::printf("label post : n=%zu p50 %.1f ms  p99 %.1f ms\n", all.post.size(), pct(all.post, 0.5),
              pct(all.post, 0.99));
  std::printf("baseline (direct issue_json, no HTTP, one thread): p50 %.2f ms  p99 %.2f ms\n",
              pct(direct, 0.5), pct(direct, 0.99));
  std::printf("baseline (direct post_label, no HTTP, one writer): p50 %.2f ms  p99 %.2f ms\n",
              pct(direct_post, 0.5), pct(direct_post, 0.99));
  std::printf("label rows: %ld acknowledged, %ld stored, %ld lost, %ld duplicated\n",
              all.posted_rows, rows, lost, duplicated);
  bool goal = pct(all.issue, 0.99) < 100 && pct(all.post, 0.99) < 100;
  std::printf("goal p99 < 100 ms (issue pages, label posts): %s\n", goal ? "met" : "NOT met");
  std::fflush(stdout);
  if (keep.empty()) fs::remove_all(dir);
  convfail::bench::print_figures("serve", pct(all.issue, 0.99) / pct(direct, 0.99),
                                 "issue page p99 over HTTP / direct issue_json p99", quick,
                                 {{"issues", issues},
                                  {"clients", clients},
                                  {"threads", threads},
                                  {"seconds", elapsed},
                                  {"requests", requests},
                                  {"requests_per_s", static_cast<double>(requests) / elapsed},
                                  {"errors", all.errors},
                                  {"issue_p50_ms", pct(all.issue, 0.5)},
                                  {"issue_p99_ms", pct(all.issue, 0.99)},
                                  {"list_p99_ms", pct(all.list, 0.99)},
                                  {"post_p50_ms", pct(all.post, 0.5)},
                                  {"post_p99_ms", pct(all.post, 0.99)},
                                  {"direct_issue_p99_ms", pct(direct, 0.99)},
                                  {"direct_post_p99_ms", pct(direct_post, 0.99)},
                                  {"labels_acknowledged", all.posted_rows},
                                  {"labels_lost", lost},
                                  {"labels_duplicated", duplicated},
                                  {"goal_met", goal}});
  return (lost || duplicated || all.errors || rows != all.posted_rows) ? 1 : 0;
}
