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
  std::unique_ptr<Db> db;  // read-only, also when the source is the target itself
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
  for (auto& c : load_campaigns(*s.db)) {
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
  read_models(*s.db, c.stored.id, [&](StoredModel&& r) {
    std::string at = where(s, c) + " model " + std::to_string(r.seq);
    if (!is_outcome(r.outcome)) throw UserError(at + ": unknown outcome");
    if (r.seq < 0 || r.seq >= c.plan_models || r.seq % c.count != c.index)
      throw UserError(at + ": not a model of this shard");
    if (r.model_sha256.empty()) return;
    if (!is_sha256(r.model_sha256)) throw UserError(at + ": malformed model_sha256");
    if (!exec::is_child_file(s.store + "/" + r.model_sha256, "model.onnx"))
      throw UserError(at + ": its files are not in " + s.store + "/" +
                      r.model_sha256.substr(0, 12) + "... (copy the shard's convfail-data " +
                      "folder beside its database)");
    s.shas.insert(r.model_sha256);
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
    std::vector<StoredModel> batch;
    ModelQuery q;
    q.after = after;
    q.limit = kBatch;
    read_models(
        *s.db, c.stored.id, [&](StoredModel&& r) { batch.push_back(std::move(r)); }, q);
    if (batch.empty()) return;
    after = batch.back().seq;
    int added = store_models(into, campaign, batch, RowWrite::kKeep);
    m.added += added;
    m.already += static_cast<int>(batch.size()) - added;
  }
}

std::vector<Source> open_sources(const std::vector<std::string>& paths) {
  std::vector<Source> sources;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::exists(p, ec))
      throw UserError("shard database " + p +
                      " does not exist (name the databases `convfail test run --shard K/N` "
                      "filled)");
    Source s;
    s.path = p;
    s.store = model_store_for(p);
    s.db = open_database_read_only(p);
    s.shards = shard_campaigns(s);
    sources.push_back(std::move(s));
  }
  return sources;
}

}  // namespace

struct MergeCheck::Sources {
  std::vector<Source> list;
};

MergeCheck::MergeCheck() = default;
MergeCheck::~MergeCheck() = default;
MergeCheck::MergeCheck(MergeCheck&&) noexcept = default;

MergeCheck merge_check(const std::vector<std::string>& shard_dbs, const std::string& into_path) {
  if (shard_dbs.empty()) throw UsageError("test merge: name at least one shard database");
  MergeCheck out;
  out.into_path = into_path;
  out.sources = std::make_unique<MergeCheck::Sources>();
  std::vector<Source>& sources = out.sources->list;
  sources = open_sources(shard_dbs);
  const Source& ref_s = sources.front();
  const ShardCampaign& ref = ref_s.shards.front();
  MergeSummary& m = out.summary;
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
  out.whole = ref.whole;
  out.versions = ref.stored.versions;
  return out;
}

MergeSummary merge_shards(const MergeCheck& checked, Db& into) {
  // Nothing refused: write. Files first, so that no stored row names a missing file.
  MergeSummary m = checked.summary;
  const std::string& into_path = checked.into_path;
  std::optional<std::int64_t> found = find_campaign(into, checked.whole);
  m.created = !found;
  m.campaign = found ? *found : create_campaign(into, checked.whole, checked.versions);
  const std::string into_store = model_store_for(into_path);
  CampaignLock lock(into_path, m.campaign);
  for (auto& s : checked.sources->list) {
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
  if (m.finished && !load_campaign(into, m.campaign).finished()) finish_campaign(into, m.campaign);
  return m;
}

MergeSummary merge_shards(const std::vector<std::string>& shard_dbs, Db& into,
                          const std::string& into_path) {
  return merge_shards(merge_check(shard_dbs, into_path), into);
}

}  // namespace convfail::testing
