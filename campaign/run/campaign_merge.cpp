#include "campaign/run/campaign_merge.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "campaign/campaign_types.h"
#include "campaign/config_differences.h"
#include "campaign/groups/groups.h"
#include "campaign/outcomes.h"
#include "campaign/run/campaign_lock.h"
#include "campaign/run/worker_reply.h"
#include "campaign/store/campaign_store.h"
#include "core/error.h"
#include "core/migrations.h"
#include "core/text.h"
#include "exec/child_files.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace convfail::campaign {
namespace {

constexpr int kBatch = 200;  // rows per transaction
// What reading one shard database may take, check and copy together (a shard is someone else's
// file: nothing in it may keep a merge busy forever).
constexpr std::chrono::minutes kShardReadLimit{30};
// The texts of a row: cut as a run cuts them (the message as the oracle does, the signature as
// exec/signature does), the others to what a name or a class needs.
constexpr std::size_t kMaxName = 300, kMaxWord = 60, kMaxSignature = 240;

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

std::string safe_text(const std::string& s, std::size_t max) {
  // Idempotent on what a run stored (its texts are terminal-safe already, backslashes escaped).
  return truncate_utf8(terminal_safe(s, false, false), max);
}

void check_number(const std::optional<double>& v, bool finite, const std::string& at,
                  const char* column) {
  if (v && (std::isnan(*v) || *v < 0 || (finite && !std::isfinite(*v))))
    throw UserError(at + ": " + column + " is not a " + (finite ? "finite " : "") + "number >= 0");
}

// A shard's row as a run would have stored it, or UserError naming the row and the column: no
// column of another type or shape (StoredModel::malformed), numbers and graphs checked as a
// worker's reply is (campaign/run/worker_reply), texts cut and terminal-safe.
StoredModel checked_row(StoredModel r, const std::string& at, const ShardCampaign& c) {
  if (!r.malformed.empty())
    throw UserError(at + ": " + r.malformed.front() +
                    " is not of its column's type or shape (a run never stores that)");
  if (!is_outcome(r.outcome)) throw UserError(at + ": unknown outcome");
  if (r.seq < 0 || r.seq >= c.plan_models || r.seq % c.count != c.index)
    throw UserError(at + ": not a model of this shard");
  check_number(r.max_abs_diff, false, at, "max_abs_diff");
  check_number(r.max_rel_diff, false, at, "max_rel_diff");
  check_number(r.min_tolerance, true, at, "min_tolerance");
  json values = {{"durations", r.durations}, {"dtypes", r.dtypes}};
  if (r.nodes) values["nodes"] = *r.nodes;
  if (r.graph.is_object()) {
    values["ops"] = r.graph.value("ops", json());
    values["edges"] = r.graph.value("edges", json());
  }
  std::string why;
  auto v = parse_reply_values(values, &why);
  auto ops = parse_reply_values({{"ops", r.operators}}, &why);
  if (!v || !ops) throw UserError(at + ": " + why);
  if (!r.durations.is_null()) r.durations = v->durations;
  if (r.graph.is_object()) r.graph = {{"ops", v->ops}, {"edges", v->edges}};
  if (!r.operators.is_null()) r.operators = ops->ops;
  r.source = safe_text(r.source, kMaxWord);
  r.name = safe_text(r.name, kMaxName);
  r.family = safe_text(r.family, kMaxWord);
  r.mismatch_mode = safe_text(r.mismatch_mode, kMaxWord);
  r.difference_kind = safe_text(r.difference_kind, kMaxWord);
  r.signature = safe_text(r.signature, kMaxSignature);
  r.message = safe_text(r.message, kMaxMessage);
  return r;
}

// A shard's store folder `sha` holds a model whose content hashes to its name (repro/model_files:
// the model with its external data); the folder is a real one, not a link.
void check_model_folder(const Source& s, const StoredModel& r, const std::string& at) {
  const std::string& sha = r.model_sha256;
  std::error_code ec;
  fs::path folder = fs::path(s.store) / sha;
  if (fs::is_symlink(folder, ec) || !exec::is_child_file(folder.string(), "model.onnx"))
    throw UserError(at + ": its files are not in " + s.store + "/" + sha.substr(0, 12) +
                    "... (copy the shard's convfail-data folder beside its database)");
  if (!model_folder_intact(s.store, sha))
    throw UserError(at + ": the model in " + s.store + "/" + sha.substr(0, 12) +
                    "... does not hash to its name (a forged store; the shard is refused)");
  // The name covers the model and its data only. A script's model folder never holds a program
  // (the script is the user's own): one there would be shipped by `test bundle` unverified.
  for (const char* extra : {"program.py", "spec.json"})
    if (r.source == "script" && fs::exists(fs::symlink_status(folder / extra, ec)))
      throw UserError(at + ": " + s.store + "/" + sha.substr(0, 12) + "... holds " + extra +
                      ", which a run of a script never stores (the shard is refused)");
}

// What two shards may not disagree on for one model.
std::string row_key(const StoredModel& r) {
  return r.outcome + '\x1f' + r.mismatch_mode + '\x1f' + r.signature + '\x1f' + r.model_sha256;
}

// Every row of a shard, checked (checked_row), with its files (check_model_folder); a model
// another shard stored with another outcome is a conflict, named in `conflicts`.
void check_rows(Source& s, const ShardCampaign& c, std::map<int, std::size_t>& seen,
                std::map<int, std::string>& conflicts) {
  read_models(*s.db, c.stored.id, [&](StoredModel&& raw) {
    std::string at = where(s, c) + " model " + std::to_string(raw.seq);
    StoredModel r = checked_row(std::move(raw), at, c);
    std::size_t key = std::hash<std::string>()(row_key(r));
    auto [it, fresh] = seen.emplace(r.seq, key);
    if (!fresh && it->second != key) conflicts.emplace(r.seq, where(s, c));
    if (r.model_sha256.empty()) return;
    if (!is_sha256(r.model_sha256)) throw UserError(at + ": malformed model_sha256");
    if (s.shas.insert(r.model_sha256).second) check_model_folder(s, r, at);
  });
}

void refuse_conflicts(const std::map<int, std::string>& conflicts) {
  if (conflicts.empty()) return;
  std::string models;
  int named = 0;
  for (const auto& [seq, at] : conflicts) {
    if (named++ == 10) {
      models += ", ...";
      break;
    }
    models += (models.empty() ? "" : ", ") + std::to_string(seq);
  }
  throw UserError(std::to_string(conflicts.size()) + " model(s) stored with different outcomes " +
                  "by two shards (models " + models + "; the second in " +
                  conflicts.begin()->second + "): refused, merge one run of each shard");
}

// Copies STORE/<sha>/ of a source into the target's store unless an intact one is there; returns
// whether it did. The copy (exec/child_files: no link followed, bounded) is hashed again in its
// temp folder before it is renamed into the store: what lands under a name hashes to it.
bool copy_model_folder(const std::string& from_store, const std::string& sha,
                       const std::string& to_store) {
  if (model_folder_intact(to_store, sha)) return false;
  fs::create_directories(to_store);
  std::random_device rd;
  fs::path tmp = fs::path(to_store) / (".tmp-merge-" + sha + "-" + std::to_string(rd()));
  std::string why;
  if (!exec::copy_child_tree(from_store, sha, tmp.string(), exec::ChildFileLimits{}, nullptr, &why))
    throw UserError("cannot copy model " + sha.substr(0, 12) + " from " + from_store + ": " + why);
  return install_model_folder(tmp.string(), to_store, sha);
}

void copy_rows(Source& s, const ShardCampaign& c, Db& into, std::int64_t campaign,
               MergeSummary& m) {
  for (int after = -1;;) {
    std::vector<StoredModel> batch;
    ModelQuery q;
    q.after = after;
    q.limit = kBatch;
    read_models(
        *s.db, c.stored.id,
        [&](StoredModel&& r) {
          std::string at = where(s, c) + " model " + std::to_string(r.seq);
          batch.push_back(checked_row(std::move(r), at, c));  // as merge_check read it
        },
        q);
    if (batch.empty()) return;
    if (batch.back().seq <= after) throw UserError(where(s, c) + ": its seqs do not ascend");
    after = batch.back().seq;
    int added = store_models(into, campaign, batch, RowWrite::kKeep);
    m.added += added;
    m.already += static_cast<int>(batch.size()) - added;
  }
}

// A shard's store (convfail-data, convfail-data/models beside its database) that is a link would
// let a shard hand over files it does not own (a link to a root-only folder).
void refuse_linked_store(const std::string& db_path, const std::string& store) {
  std::error_code ec;
  fs::path models(store);
  for (const fs::path& p : {models.parent_path(), models})
    if (fs::is_symlink(p, ec))
      throw UserError("shard database " + db_path + ": its store " + p.string() +
                      " is a symbolic link (a shard's files are never taken through a link)");
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
    refuse_linked_store(p, s.store);
    s.db = open_database_read_only(p);
    s.db->set_time_limit(kShardReadLimit);
    check_schema_views_and_triggers(*s.db);
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
  std::map<int, std::size_t> seen;  // seq -> what a shard stored for it (row_key, hashed)
  std::map<int, std::string> conflicts;
  for (auto& s : sources)
    for (const auto& c : s.shards) {
      check_same_plan(s, c, ref_s, ref);
      check_rows(s, c, seen, conflicts);
      given.insert(c.index);
      if (!c.stored.finished_at) m.partial_shards.push_back(c.index);
      ++m.shard_campaigns;
    }
  refuse_conflicts(conflicts);
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

}  // namespace convfail::campaign
