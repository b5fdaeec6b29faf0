#include "testing/campaign.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

#include "core/error.h"
#include "core/text.h"
#include "testing/campaign_lock.h"
#include "testing/campaign_store.h"
#include "testing/groups.h"
#include "testing/oracle.h"

using nlohmann::json;

namespace convfail::testing {
namespace {

class Progress {
 public:
  Progress(const RunOptions& o, int total) : o_(o), total_(total) {}
  void add(const std::string& outcome) {
    std::lock_guard<std::mutex> lock(mu_);
    ++done_;
    ++counts_[outcome];
    print(false);
  }
  void finish() {
    std::lock_guard<std::mutex> lock(mu_);
    if (printed_ != done_) print(true);
    if (o_.progress && o_.progress_tty) std::fputs("\n", stderr);
  }

 private:
  void print(bool force) {
    if (!o_.progress) return;
    auto now = std::chrono::steady_clock::now();
    double since = std::chrono::duration<double>(now - last_).count();
    if (!force && since < (o_.progress_tty ? 0.5 : 5.0) && done_ != total_) return;
    last_ = now;
    printed_ = done_;
    double elapsed = std::chrono::duration<double>(now - t0_).count();
    double rate = elapsed > 0 ? done_ / elapsed : 0;
    std::string outcomes;  // validated outcome names; made terminal-safe all the same
    for (const auto& [k, v] : counts_)
      outcomes += " " + terminal_safe(k.substr(0, 40)) + "=" + std::to_string(v);
    double eta = rate > 0 ? (total_ - done_) / rate : 0;
    std::fprintf(stderr, "%stest: %d/%d models, %.2f models/s,%s, ETA %.0f s%s",
                 o_.progress_tty ? "\r\033[K" : "", done_, total_, rate, outcomes.c_str(), eta,
                 o_.progress_tty ? "" : "\n");
    std::fflush(stderr);
  }
  const RunOptions& o_;
  int total_;
  int done_ = 0;
  int printed_ = -1;
  std::map<std::string, int> counts_;
  std::mutex mu_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace

StoredModel model_row(const ModelTask& task, const ModelResult& r, const std::string& sha) {
  StoredModel m;
  m.seq = task.seq;
  m.source = task.source;
  m.name = task.name;
  m.family = task.family;
  m.seed = task.seed;
  m.outcome = r.outcome;
  m.mismatch_mode = r.mismatch_mode;
  m.harness_note = r.harness_note;
  m.signature = r.signature;
  m.message = r.message;
  if (r.nodes > 0) m.nodes = r.nodes;
  m.model_sha256 = sha;
  const bool compared = r.outcome == kMismatch || r.outcome == kSuccess;
  if (compared) {
    m.max_abs_diff = r.max_abs_diff;
    m.max_rel_diff = r.max_rel_diff;
  }
  if (compared && r.min_tolerance >= 0) {
    m.min_tolerance = std::min(r.min_tolerance, 1e308);
    m.difference_kind = r.difference_kind;
  }
  m.durations = r.durations;
  m.dtypes = r.dtypes;
  if (!r.ops.empty()) {
    m.operators = r.ops;
    m.graph = r.graph_json();
  }
  return m;
}

RunSummary run_campaign(Db& db, const CampaignConfig& config, const RunOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  RunSummary s;
  json key = config.to_json();
  int jobs = std::max(1, options.jobs);
  std::vector<std::unique_ptr<Oracle>> oracles;
  oracles.push_back(std::make_unique<Oracle>(config.oracle));
  json versions = oracles[0]->versions();
  key["ort"] = versions["onnxruntime"];  // the release it runs on: part of what it is
  auto libraries = zoo_libraries(config);
  json zoo = libraries.empty() ? json::array() : oracles[0]->zoo_models(libraries);
  std::vector<ModelTask> plan = make_plan(config, zoo);
  if (options.shard.active()) {
    key["shard"] = shard_json(options.shard, plan.size());
    plan = shard_plan(plan, options.shard);
  }
  s.planned = static_cast<int>(plan.size());

  std::optional<std::int64_t> existing;
  if (!options.new_campaign) existing = find_campaign(db, key);
  s.campaign = existing ? *existing : create_campaign(db, key, versions);
  // One run per campaign at a time: a second one would do all the work again beside it.
  CampaignLock campaign_lock(options.store_dir, s.campaign, db.path());
  std::set<int> done = stored_seqs(db, s.campaign);
  std::vector<const ModelTask*> todo;
  for (const auto& t : plan)
    if (!done.count(t.seq)) todo.push_back(&t);
  s.already = static_cast<int>(plan.size() - todo.size());
  if (options.limit > 0 && static_cast<int>(todo.size()) > options.limit)
    todo.resize(static_cast<std::size_t>(options.limit));

  for (int j = 1; j < jobs && j < static_cast<int>(todo.size()); ++j)
    oracles.push_back(std::make_unique<Oracle>(config.oracle));
  std::atomic<std::size_t> next{0};
  std::atomic<int> ran{0};
  std::mutex db_mu;
  std::string first_error;
  Progress progress(options, static_cast<int>(todo.size()));
  auto budget_over = [&] {
    return options.time_budget_seconds > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >
               options.time_budget_seconds;
  };
  auto work = [&](Oracle* oracle) {
    for (;;) {
      std::size_t i = next++;
      if (i >= todo.size() || budget_over()) return;
      try {
        ModelResult r = oracle->run(*todo[i]);
        std::string sha =
            r.has_model ? store_model_files(r.model_dir, options.store_dir) : std::string();
        {
          std::lock_guard<std::mutex> lock(db_mu);
          store_models(db, s.campaign, {model_row(*todo[i], r, sha)}, RowWrite::kReplace);
        }
        ++ran;
        progress.add(r.outcome);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(db_mu);
        if (first_error.empty()) first_error = e.what();
        next = todo.size();  // stop the others
        return;
      }
    }
  };
  auto loop_start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (std::size_t j = 1; j < oracles.size(); ++j) threads.emplace_back(work, oracles[j].get());
  work(oracles[0].get());
  for (auto& t : threads) t.join();
  progress.finish();
  s.loop_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
  if (!first_error.empty()) throw UserError(first_error);
  s.ran = ran;
  if (stored_seqs(db, s.campaign).size() == plan.size()) {
    regroup(db, s.campaign);
    finish_campaign(db, s.campaign);
    s.finished = true;
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

}  // namespace convfail::testing
