#include "testing/campaign_merge.h"

#include <filesystem>
#include <memory>
#include <random>
#include <set>

#include "core/error.h"
#include "core/migrations.h"
#include "exec/child_files.h"
#include "testing/campaign_compare.h"
#include "testing/campaign_lock.h"
#include "testing/campaign_store.h"
#include "testing/groups.h"
#include "testing/outcomes.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace convfail::testing {
namespace {

constexpr int kBatch = 200;  // rows per transaction

struct ShardCampaign {
  StoredCampaign stored;
  json whole;  // the configuration without "shard"
  int index = 0, count = 0, plan_models = 0;
};

struct Source {
  std::string path, store;
  std::unique_ptr<Db> own;  // null when the source is the target itself
  Db* db = nullptr;
  std::vector<ShardCampaign> shards;
  std::set<std::string> shas;  // model folders its rows name
};

std::string where(const Source& s, const ShardCampaign& c) {
  return s.path + " campaign " + std::to_string(c.stored.id) + " (shard " +
         std::to_string(c.index) + "/" + std::to_string(c.count) + ")";
}

int int_in(const json& j, const char* key, int lo, int hi) {
  if (!j.contains(key) || !j[key].is_number_integer()) return -1;
  auto v = j[key].get<std::int64_t>();
  return v < lo || v > hi ? -1 : static_cast<int>(v);
}

std::vector<ShardCampaign> shard_campaigns(const Source& s) {
  std::vector<ShardCampaign> out;
  for (auto& c : stored_campaigns(*s.db)) {
    if (!c.config.is_object() || !c.config.contains("shard")) continue;
    ShardCampaign sc;
    const json& sh = c.config["shard"];
    sc.count = sh.is_object() ? int_in(sh, "count", 1, 1 << 30) : -1;
    sc.index = sh.is_object() ? int_in(sh, "index", 0, sc.count - 1) : -1;
    sc.plan_models = sh.is_object() ? int_in(sh, "plan_models", 0, 1 << 30) : -1;
    if (sc.count < 0 || sc.index < 0 || sc.plan_models < 0)
      throw UserError(s.path + " campaign " + std::to_string(c.id) +
                      ": malformed \"shard\" in its configuration");
    sc.whole = c.config;
    sc.whole.erase("shard");
    sc.stored = std::move(c);
    out.push_back(std::move(sc));
  }
  if (out.empty())
    throw UserError(s.path +
                    " holds no shard campaign (`convfail test run --shard K/N` makes one)");
  return out;
}

// Refuses a shard of another plan: the first differences, on one line.
void check_same_plan(const Source& s, const ShardCampaign& c, const Source& ref_s,
                     const ShardCampaign& ref) {
  auto d = config_differences(c.whole, ref.whole, c.stored.versions, ref.stored.versions);
  if (c.count != ref.count)
    d.insert(d.begin(), {"shard count", std::to_string(c.count), std::to_string(ref.count)});
  if (c.plan_models != ref.plan_models)
    d.push_back({"plan models", std::to_string(c.plan_models), std::to_string(ref.plan_models)});
  if (!d.empty())
    throw UserError(where(s, c) + " is another configuration than " + where(ref_s, ref) + ": " +
                    differences_line(d) + " (shards of different plans are never merged)");
}

bool is_sha256(const std::string& s) {
  if (s.size() != 64) return false;
  for (char ch : s)
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return false;
  return true;
}

// Every row of a shard: an outcome, a seq of this shard, a well-formed hash whose files exist.
void check_rows(Source& s, const ShardCampaign& c) {
  for_each_model_row(*s.db, c.stored.id, [&](const StoredModelRow& r) {
    std::string at = where(s, c) + " model " + std::to_string(r.seq);
    if (!is_outcome(r.outcome)) throw UserError(at + ": unknown outcome");
    if (r.seq < 0 || r.seq >= c.plan_models || r.seq % c.count != c.index)
      throw UserError(at + ": not a model of this shard");
    if (!r.model_sha256) return;
    if (!is_sha256(*r.model_sha256)) throw UserError(at + ": malformed model_sha256");
    if (!exec::is_child_file(s.store + "/" + *r.model_sha256, "model.onnx"))
      throw UserError(at + ": its files are not in " + s.store + "/" +
                      r.model_sha256->substr(0, 12) + "... (copy the shard's convfail-data " +
                      "folder beside its database)");
    s.shas.insert(*r.model_sha256);
  });
}

// Copies STORE/<sha>/ of a source into the target's store unless there; returns whether it did.
bool copy_model_folder(const std::string& from_store, const std::string& sha,
                       const std::string& to_store) {
  std::error_code ec;
  fs::path dest = fs::path(to_store) / sha;
  if (fs::is_directory(dest, ec)) return false;
  fs::create_directories(to_store);
  std::random_device rd;
  fs::path tmp = fs::path(to_store) / (".tmp-merge-" + sha + "-" + std::to_string(rd()));
  std::string why;
  if (!exec::copy_child_tree(from_store, sha, tmp.string(), exec::ChildFileLimits{}, nullptr, &why))
    throw UserError("cannot copy model " + sha.substr(0, 12) + " from " + from_store + ": " + why);
  fs::rename(tmp, dest, ec);
  if (ec) {
    exec::remove_child_tree(tmp.string());  // stored meanwhile by another process
    return false;
  }
  return true;
}

void copy_rows(Source& s, const ShardCampaign& c, Db& into, std::int64_t campaign,
               MergeSummary& m) {
  for (int after = -1;;) {
    std::vector<StoredModelRow> batch;
    for_each_model_row(
        *s.db, c.stored.id, [&](const StoredModelRow& r) { batch.push_back(r); }, after, kBatch);
    if (batch.empty()) return;
    after = batch.back().seq;
    int added = insert_missing_model_rows(into, campaign, batch);
    m.added += added;
    m.already += static_cast<int>(batch.size()) - added;
  }
}

std::vector<Source> open_sources(const std::vector<std::string>& paths, Db& into,
                                 const std::string& into_path) {
  std::vector<Source> sources;
  for (const auto& p : paths) {
    Source s;
    s.path = p;
    s.store = model_store_for(p);
    std::error_code ec;
    if (fs::equivalent(p, into_path, ec)) {
      s.db = &into;
    } else {
      s.own = open_database_read_only(p);
      s.db = s.own.get();
    }
    s.shards = shard_campaigns(s);
    sources.push_back(std::move(s));
  }
  return sources;
}

}  // namespace

MergeSummary merge_shards(const std::vector<std::string>& shard_dbs, Db& into,
                          const std::string& into_path) {
  if (shard_dbs.empty()) throw UsageError("test merge: name at least one shard database");
  std::vector<Source> sources = open_sources(shard_dbs, into, into_path);
  const Source& ref_s = sources.front();
  const ShardCampaign& ref = ref_s.shards.front();
  MergeSummary m;
  m.shard_count = ref.count;
  m.plan_models = ref.plan_models;
  std::set<int> given;
  for (auto& s : sources)
    for (const auto& c : s.shards) {
      check_same_plan(s, c, ref_s, ref);
      check_rows(s, c);
      given.insert(c.index);
      if (!c.stored.finished_at) m.partial_shards.push_back(c.index);
      ++m.shard_campaigns;
    }
  for (int k = 0; k < ref.count; ++k)
    if (!given.count(k)) m.missing_shards.push_back(k);

  // Nothing refused: write. Files first, so that no stored row names a missing file.
  std::optional<std::int64_t> found = find_campaign(into, ref.whole);
  m.created = !found;
  m.campaign = found ? *found : create_campaign(into, ref.whole, ref.stored.versions);
  const std::string into_store = model_store_for(into_path);
  CampaignLock lock(into_path, m.campaign);
  for (auto& s : sources) {
    std::error_code ec;
    bool same_store = fs::equivalent(s.store, into_store, ec);
    for (const auto& sha : s.shas)
      if (!same_store && copy_model_folder(s.store, sha, into_store)) ++m.files_copied;
    for (const auto& c : s.shards) copy_rows(s, c, into, m.campaign, m);
  }
  m.stored = static_cast<int>(stored_seqs(into, m.campaign).size());
  m.missing = std::max(0, m.plan_models - m.stored);
  regroup(into, m.campaign);
  m.finished = m.missing == 0;
  if (m.finished && !campaign_status(into, m.campaign).finished) finish_campaign(into, m.campaign);
  return m;
}

}  // namespace convfail::testing
