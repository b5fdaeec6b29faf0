// Import throughput: N synthetic issues written as JSONL and imported with import_files(),
// against the sqlite3 shell's `.import` of the same rows as CSV into a plain table (the
// baseline, measured in the same run). Goal: >= 30,000 issues/s and within 3x of `.import`.
// Ends with the JSON line {"bench": "import", "ratio": ours / baseline wall time, ...}.
//
// A second baseline, reported beside the first (schema_*; the ratio and the goal stay the
// first's): the sqlite3 shell loading the same rows, with each object's JSON text, into a
// database of convfail's schema (migrated as import's is: WAL, 16 KiB pages, synchronous=NORMAL,
// import's 256 MiB page cache) in ONE transaction: issues with their indexes and FTS5 triggers,
// repositories, labels. It is what SQLite itself spends storing these rows as convfail stores them,
// with no parsing, no checking, no idempotency lookup and no slices: the plain table has none of
// convfail's indexes, full-text index or raw JSON.
//
//   bench_import [--n 100000] [--quick] [--keep DIR]     (--quick: 3,000 issues)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "bench/figures.h"
#include "core/importer.h"
#include "core/migrations.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

const char* kWords[] = {
    "export",    "onnx",      "opset",   "tensor",    "shape",     "node",     "graph",
    "converter", "runtime",   "error",   "model",     "symbolic",  "dynamic",  "axes",
    "reshape",   "gather",    "slice",   "transpose", "optimizer", "constant", "folding",
    "float32",   "int64",     "cast",    "batch",     "input",     "output",   "layer",
    "traceback", "file",      "line",    "module",    "version",   "support",  "operator",
    "fails",     "wrong",     "result",  "differs",   "inference", "session",  "provider",
    "kernel",    "attribute", "default", "value",     "checker",   "protobuf", "weights"};

std::string words(std::mt19937& rng, int n) {
  std::uniform_int_distribution<std::size_t> pick(0, std::size(kWords) - 1);
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (i) out += (i % 12 == 0) ? "\n" : " ";
    out += kWords[pick(rng)];
  }
  return out;
}

std::string csv_field(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

// CPU seconds (user + system) of this process, or of its waited-for children.
double cpu_seconds(int who) {
  rusage u{};
  getrusage(who, &u);
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec +
         u.ru_stime.tv_usec / 1e6;
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = convfail::bench::quick_mode(argc, argv);
  std::int64_t n = quick ? 3000 : 100000;
  std::string keep;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") {
      continue;
    } else if (a == "--n" && i + 1 < argc) {
      n = std::atoll(argv[++i]);
    } else if (a == "--keep" && i + 1 < argc) {
      keep = argv[++i];
    } else {
      std::cerr << "usage: bench_import [--n N] [--quick] [--keep DIR]\n";
      return 2;
    }
  }
  if (n <= 0) {
    std::cerr << "bench_import: --n must be positive\n";
    return 2;
  }
  fs::path dir = keep.empty()
                     ? fs::temp_directory_path() / ("convfail-bench-" + std::to_string(::getpid()))
                     : fs::path(keep);
  fs::create_directories(dir);
  // The generated files go whatever happens (unless --keep): a failed run leaves nothing behind.
  struct RemoveAtExit {
    fs::path dir;
    ~RemoveAtExit() {
      std::error_code ec;
      if (!dir.empty()) fs::remove_all(dir, ec);
    }
  } remove_at_exit{keep.empty() ? dir : fs::path()};
  const std::string jsonl = (dir / "issues.jsonl").string();
  const std::string csv = (dir / "issues.csv").string();
  const std::string schema_csv = (dir / "issues_raw.csv").string();  // the second baseline's
  const std::string schema_db = (dir / "schema.db").string();
  const std::string ours_db = (dir / "ours.db").string();
  const std::string base_db = (dir / "baseline.db").string();
  for (const std::string& f : {ours_db, base_db, schema_db})
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(f + suffix);

  // Same rows in both files: repo, number, title, state, author, created_at, updated_at,
  // closed_at, labels, body (~100 words, like a short report).
  {
    std::mt19937 rng(42);
    std::ofstream j(jsonl, std::ios::binary), c(csv, std::ios::binary),
        r(schema_csv, std::ios::binary);
    const char* repos[] = {"pytorch/pytorch", "onnx/tensorflow-onnx", "PaddlePaddle/Paddle2ONNX"};
    for (std::int64_t i = 0; i < n; ++i) {
      std::string repo = repos[i % 3];
      std::string title = words(rng, 8);
      std::string body = words(rng, 100);
      std::string state = (i % 5) ? "closed" : "open";
      std::string author = "user" + std::to_string(i % 997);
      // Days 10-19 and 20-28 exist in every month (import refuses 2023-02-29).
      std::string created =
          "2022-0" + std::to_string(1 + i % 9) + "-1" + std::to_string(i % 10) + "T10:00:00Z";
      std::string updated =
          "2023-0" + std::to_string(1 + i % 9) + "-2" + std::to_string(i % 9) + "T10:00:00Z";
      std::vector<std::string> labels = {"module: onnx", (i % 2) ? "triaged" : "bug"};
      nlohmann::json o = {
          {"repo", repo},
          {"number", i + 1},
          {"title", title},
          {"state", state},
          {"labels", labels},
          {"author", author},
          {"created_at", created},
          {"updated_at", updated},
          {"closed_at", state == "closed" ? nlohmann::json(updated) : nlohmann::json(nullptr)},
          {"body", body}};
      const std::string text = o.dump();
      j << text << "\n";
      r << csv_field(repo) << ',' << (i + 1) << ',' << csv_field(title) << ',' << state << ','
        << author << ',' << created << ',' << updated << ',' << (state == "closed" ? updated : "")
        << ',' << csv_field(nlohmann::json(labels).dump()) << ',' << csv_field(body) << ','
        << csv_field(text) << "\n";
      c << csv_field(repo) << ',' << (i + 1) << ',' << csv_field(title) << ',' << state << ','
        << author << ',' << created << ',' << updated << ',' << (state == "closed" ? updated : "")
        << ',' << csv_field(labels[0] + "," + labels[1]) << ',' << csv_field(body) << "\n";
    }
  }
  std::cout << "bench_import: " << n << " synthetic issues, JSONL "
            << fs::file_size(jsonl) / 1024 / 1024 << " MiB, CSV "
            << fs::file_size(csv) / 1024 / 1024 << " MiB (" << dir.string() << ")\n";

  // Ours: open + migrate outside the timing, then import_files (one transaction, FTS, labels).
  double ours = 0, ours_cpu = 0;
  {
    auto db = convfail::open_database(ours_db);
    auto t0 = Clock::now();
    double c0 = cpu_seconds(RUSAGE_SELF);
    convfail::ImportCounts counts;
    try {
      counts = convfail::import_files(*db, {jsonl});
    } catch (const std::exception& e) {  // a generator the importer refuses: say so, exit 1
      std::cerr << "bench_import: import failed: " << e.what() << "\n";
      return 1;
    }
    ours = seconds_since(t0);
    ours_cpu = cpu_seconds(RUSAGE_SELF) - c0;
    if (counts.inserted != n) {
      std::cerr << "bench_import: imported " << counts.inserted << " of " << n << "\n";
      return 1;
    }
  }

  // Baseline: the sqlite3 shell loading the same rows into a plain table.
  std::string script = (dir / "baseline.sql").string();
  {
    std::ofstream s(script);
    s << "CREATE TABLE issues(repo TEXT, number INTEGER, title TEXT, state TEXT, author TEXT, "
         "created_at TEXT, updated_at TEXT, closed_at TEXT, labels TEXT, body TEXT);\n"
      << ".mode csv\n"
      << ".import '" << csv << "' issues\n";
  }
  std::string cmd = "sqlite3 '" + base_db + "' < '" + script + "'";
  auto t0 = Clock::now();
  double c0 = cpu_seconds(RUSAGE_CHILDREN);
  int rc = std::system(cmd.c_str());
  double base = seconds_since(t0);
  double base_cpu = cpu_seconds(RUSAGE_CHILDREN) - c0;
  if (rc != 0) {
    std::cerr << "bench_import: the sqlite3 shell failed (is it installed?): " << cmd << "\n";
    return 1;
  }
  FILE* p = popen(("sqlite3 '" + base_db + "' 'SELECT count(*) FROM issues'").c_str(), "r");
  long long base_rows = 0;
  if (!p || std::fscanf(p, "%lld", &base_rows) != 1) base_rows = -1;
  if (p) pclose(p);
  if (base_rows != n) {
    std::cerr << "bench_import: baseline loaded " << base_rows << " rows, expected " << n << "\n";
    return 1;
  }

  // The second baseline: the same rows into convfail's schema, one transaction.
  {
    convfail::open_database(schema_db);  // created and migrated as import's database is
  }
  std::string schema_script = (dir / "schema.sql").string();
  {
    std::ofstream s(schema_script);
    s << "PRAGMA synchronous=NORMAL;\n"
      << "PRAGMA cache_size=-262144;\n"  // as import_files sets it
      << "PRAGMA temp.cache_size=-262144;\n"
      << "CREATE TEMP TABLE csv(repo, number INTEGER, title, state, author, created_at, "
         "updated_at, closed_at, labels, body, raw);\n"
      << ".mode csv\n"
      << ".import '" << schema_csv << "' csv\n"
      << "BEGIN;\n"
      << "INSERT OR IGNORE INTO repositories(full_name) SELECT DISTINCT repo FROM temp.csv;\n"
      << "INSERT INTO issues(repo_id, number, title, body, state, author, created_at, "
         "updated_at, closed_at, raw_json) SELECT r.id, c.number, c.title, c.body, c.state, "
         "c.author, c.created_at, c.updated_at, nullif(c.closed_at, ''), c.raw FROM temp.csv c "
         "JOIN repositories r ON r.full_name = c.repo ORDER BY c.rowid;\n"
      << "INSERT INTO issue_labels(issue_id, name) SELECT i.id, l.value FROM temp.csv c JOIN "
         "repositories r ON r.full_name = c.repo JOIN issues i ON i.repo_id = r.id AND "
         "i.number = c.number, json_each(c.labels) l;\n"
      << "COMMIT;\n";
  }
  std::string schema_cmd = "sqlite3 '" + schema_db + "' < '" + schema_script + "'";
  t0 = Clock::now();
  c0 = cpu_seconds(RUSAGE_CHILDREN);
  rc = std::system(schema_cmd.c_str());
  double schema = seconds_since(t0);
  double schema_cpu = cpu_seconds(RUSAGE_CHILDREN) - c0;
  if (rc != 0) {
    std::cerr << "bench_import: the sqlite3 shell failed: " << schema_cmd << "\n";
    return 1;
  }
  p = popen(("sqlite3 '" + schema_db + "' 'SELECT count(*) FROM issues_fts'").c_str(), "r");
  long long schema_rows = 0;
  if (!p || std::fscanf(p, "%lld", &schema_rows) != 1) schema_rows = -1;
  if (p) pclose(p);
  if (schema_rows != n) {
    std::cerr << "bench_import: the schema baseline stored " << schema_rows << " rows, expected "
              << n << "\n";
    return 1;
  }

  double ours_rate = n / ours, base_rate = n / base, ratio = ours / base;
  std::printf("convfail import : %8.3f s wall  %10.0f issues/s   (CPU %.3f s)\n", ours, ours_rate,
              ours_cpu);
  std::printf(
      "sqlite3 .import : %8.3f s wall  %10.0f rows/s     (CPU %.3f s; plain table, no index)\n",
      base, base_rate, base_cpu);
  std::printf("ratio           : %8.2fx the baseline's wall time (%.2fx its CPU time)\n", ratio,
              ours_cpu / base_cpu);
  std::printf(
      "sqlite3, schema : %8.3f s wall  %10.0f rows/s     (CPU %.3f s; convfail's schema, one "
      "transaction)\n",
      schema, n / schema, schema_cpu);
  std::printf("ratio to it     : %8.2fx its wall time (%.2fx its CPU time)\n", ours / schema,
              ours_cpu / schema_cpu);
  std::printf("goal            : >= 30000 issues/s: %s; within 3x of .import: %s\n",
              ours_rate >= 30000 ? "met" : "MISSED", ratio <= 3.0 ? "met" : "MISSED");
  // Wall times on a shared machine include waiting for the CPU; the CPU times do not.
  double load[1] = {0};
  if (getloadavg(load, 1) == 1) std::printf("load average    : %.2f\n", load[0]);
  std::fflush(stdout);
  nlohmann::json figures = {{"issues", n},
                            {"seconds", ours},
                            {"issues_per_s", ours_rate},
                            {"cpu_seconds", ours_cpu},
                            {"baseline_seconds", base},
                            {"baseline_cpu_seconds", base_cpu},
                            {"goal_met", ours_rate >= 30000 && ratio <= 3.0}};
  if (base_cpu > 0) figures["cpu_ratio"] = ours_cpu / base_cpu;
  figures["schema_seconds"] = schema;
  figures["schema_cpu_seconds"] = schema_cpu;
  figures["schema_ratio"] = ours / schema;
  if (schema_cpu > 0) figures["schema_cpu_ratio"] = ours_cpu / schema_cpu;
  convfail::bench::print_figures("import", ratio, "convfail import wall / sqlite3 .import wall",
                                 quick, figures);
  return 0;
}
