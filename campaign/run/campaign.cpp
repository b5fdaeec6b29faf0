#include "campaign/run/campaign.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "campaign/groups/groups.h"
#include "campaign/run/campaign_lock.h"
#include "campaign/run/oracle.h"
#include "campaign/run/support_matrix.h"
#include "campaign/store/campaign_store.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "core/text.h"
#include "repro/repro_command.h"

using nlohmann::json;

namespace convfail::campaign {
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
    if (total_ == 0) return;  // nothing to run: no "0/0 models" line
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
      outcomes += ", " + terminal_safe(k.substr(0, 40)) + "=" + std::to_string(v);
    double eta = rate > 0 ? (total_ - done_) / rate : 0;
    std::fprintf(stderr, "%stest: %d/%d models, %.2f models/s%s, ETA %.0f s%s",
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

bool filtered_synthetic(const CampaignConfig& c) {
  return c.filtered &&
         std::find(c.sources.begin(), c.sources.end(), "synthetic") != c.sources.end();
}

// A filtered campaign's draw: the support matrix of the release under test for the campaign's
// opset and types (its missing cells measured first), its working pairs, and the matrix's
// identity in the campaign's key.
json draw_support(Db& db, const CampaignConfig& c, int jobs, bool progress, Oracle& probe,
                  json& key) {
  MeasureOptions mo;
  mo.opsets = {c.oracle.opset};
  mo.dtypes = c.oracle.dtypes;
  mo.jobs = jobs;
  mo.progress = progress;
  mo.oracle = c.oracle;
  MeasureSummary ms = ensure_support_matrix(db, mo, &probe);
  json pairs = working_pairs(load_support_cells(db, ms.matrix), c.oracle.opset, c.oracle.dtypes);
  if (pairs.empty())
    throw UserError("the support matrix of onnxruntime " + terminal_safe(ms.versions.onnxruntime) +
                    " lists no working operator for these types (convfail test support shows "
                    "it; --unfiltered draws without it)");
  key["support_matrix"] = support_identity(ms.versions, pairs);
  return pairs;
}

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
  m.main_dtype = r.main_dtype;
  if (!r.ops.empty()) {
    m.operators = r.ops;
    m.graph = r.graph_json();
  }
  return m;
}

namespace {

// A finished campaign asked again answers from the store: a plan that needs no worker (no zoo)
// on a release known without starting one (--ort, else the pinned onnxruntime-node), whose
// campaign is finished with every planned model stored. nullopt: ask the workers.
std::optional<RunSummary> already_finished(Db& db, const CampaignConfig& config,
                                           const RunOptions& options) {
  if (options.new_campaign || !zoo_libraries(config).empty()) return std::nullopt;
  json key = config.to_json();
  const std::string ort = config.oracle.ort_version.empty() ? repro::pinned_runtime_version()
                                                            : config.oracle.ort_version;
  if (ort.empty()) return std::nullopt;
  key["ort"] = ort;
  std::vector<ModelTask> plan = make_plan(config, json::array());
  if (options.shard.active()) {
    key["shard"] = shard_json(options.shard, plan.size());
    plan = shard_plan(plan, options.shard);
  }
  std::optional<std::int64_t> id = find_campaign(db, key);
  if (!id || !load_campaign(db, *id).finished_at) return std::nullopt;
  std::set<int> stored = stored_seqs(db, *id);
  for (const auto& t : plan)
    if (!stored.count(t.seq)) return std::nullopt;
  RunSummary s;
  s.campaign = *id;
  s.planned = s.already = static_cast<int>(plan.size());
  s.finished = s.answered_from_store = true;
  return s;
}

}  // namespace

RunSummary run_campaign(Db& db, const CampaignConfig& config, const RunOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  if (std::optional<RunSummary> done = already_finished(db, config, options)) {
    done->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return *done;
  }
  RunSummary s;
  json key = config.to_json();
  int jobs = std::max(1, options.jobs);
  std::vector<std::unique_ptr<Oracle>> oracles;
  OracleOptions oracle_options = config.oracle;
  oracles.push_back(std::make_unique<Oracle>(oracle_options));
  json versions = oracles[0]->versions();
  key["ort"] = versions["onnxruntime"];  // the release it runs on: part of what it is
  if (filtered_synthetic(config)) {
    oracle_options.support = draw_support(db, config, jobs, options.progress, *oracles[0], key);
    oracles[0]->set_support(oracle_options.support);
  }
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
  // Nothing stored on disk (tests of the loop alone): nothing to lock either.
  std::optional<CampaignLock> campaign_lock;
  if (!options.store_dir.empty()) campaign_lock.emplace(db.path(), s.campaign);
  std::set<int> done = stored_seqs(db, s.campaign);
  std::vector<const ModelTask*> todo;
  for (const auto& t : plan)
    if (!done.count(t.seq)) todo.push_back(&t);
  s.already = static_cast<int>(plan.size() - todo.size());
  if (options.limit > 0 && static_cast<int>(todo.size()) > options.limit)
    todo.resize(static_cast<std::size_t>(options.limit));

  for (int j = 1; j < jobs && j < static_cast<int>(todo.size()); ++j)
    oracles.push_back(std::make_unique<Oracle>(oracle_options));
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
      if (i >= todo.size() || budget_over() || interrupted()) return;
      try {
        ModelResult r = oracle->run(*todo[i]);
        // A run cut by the signal (its worker killed) says nothing of the model: not stored.
        if (interrupted()) return;
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
  if (!first_error.empty() && !interrupted()) throw UserError(first_error);
  s.ran = ran;
  s.stored = static_cast<int>(stored_seqs(db, s.campaign).size());
  s.interrupted = interrupt_signal();
  if (!s.interrupted && s.stored == static_cast<int>(plan.size())) {
    regroup(db, s.campaign);
    finish_campaign(db, s.campaign);
    s.finished = true;
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

}  // namespace convfail::campaign
