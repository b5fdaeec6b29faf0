#include "testing/campaign_store.h"

#include <filesystem>
#include <random>

#include <unistd.h>

#include "core/error.h"
#include "exec/child_files.h"
#include "repro/model_files.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace convfail::testing {

std::optional<std::int64_t> find_campaign(Db& db, const json& config) {
  auto st = db.prepare("SELECT id FROM campaigns WHERE config_json = ? ORDER BY id DESC LIMIT 1");
  st.bind(1, config.dump());
  if (st.step()) return st.int64(0);
  // A campaign stored before the key held its ONNX Runtime release: the same configuration run
  // on that release (its versions) is the same campaign.
  if (!config.contains("ort") || !config["ort"].is_string()) return std::nullopt;
  json legacy = config;
  legacy.erase("ort");
  auto old = db.prepare(
      "SELECT id FROM campaigns WHERE config_json = ? AND "
      "json_extract(versions_json, '$.onnxruntime') = ? ORDER BY id DESC LIMIT 1");
  old.bind(1, legacy.dump()).bind(2, config["ort"].get<std::string>());
  if (old.step()) return old.int64(0);
  return std::nullopt;
}

std::int64_t create_campaign(Db& db, const json& config, const json& versions) {
  auto st = db.prepare("INSERT INTO campaigns (config_json, versions_json) VALUES (?, ?)");
  st.bind(1, config.dump()).bind(2, versions.dump());
  st.run();
  return db.last_insert_id();
}

void finish_campaign(Db& db, std::int64_t id) {
  auto st = db.prepare(
      "UPDATE campaigns SET finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?");
  st.bind(1, id);
  st.run();
}

std::int64_t latest_campaign(Db& db) {
  std::int64_t id = db.scalar("SELECT COALESCE(MAX(id), 0) FROM campaigns");
  if (!id) throw UserError("no campaign stored (run `convfail test run` first)");
  return id;
}

json campaign_config(Db& db, std::int64_t id) {
  auto st = db.prepare("SELECT config_json FROM campaigns WHERE id = ?");
  st.bind(1, id);
  if (!st.step()) throw UserError("no campaign " + std::to_string(id));
  return json::parse(st.text(0), nullptr, false);
}

std::set<int> stored_seqs(Db& db, std::int64_t id) {
  std::set<int> out;
  auto st = db.prepare("SELECT seq FROM campaign_models WHERE campaign_id = ?");
  st.bind(1, id);
  while (st.step()) out.insert(static_cast<int>(st.int64(0)));
  return out;
}

void store_model(Db& db, std::int64_t campaign, const ModelTask& task, const ModelResult& r,
                 const std::string& sha) {
  Transaction tx(db);
  auto st = db.prepare(
      "INSERT OR REPLACE INTO campaign_models (campaign_id, seq, source, name, nodes, "
      "model_sha256, outcome, mismatch_mode, signature, message, max_abs_diff, max_rel_diff, "
      "operators_json, graph_json, durations_json, seed, family, min_tolerance, difference_kind, "
      "dtypes_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  st.bind(1, campaign).bind(2, task.seq).bind(3, task.source).bind(4, task.name);
  if (r.nodes > 0)
    st.bind(5, r.nodes);
  else
    st.bind_null(5);
  st.bind(6, sha.empty() ? std::optional<std::string>() : std::optional<std::string>(sha));
  st.bind(7, r.outcome);
  st.bind(8, r.mismatch_mode.empty() ? std::optional<std::string>()
                                     : std::optional<std::string>(r.mismatch_mode));
  st.bind(9, r.signature.empty() ? std::optional<std::string>()
                                 : std::optional<std::string>(r.signature));
  st.bind(10,
          r.message.empty() ? std::optional<std::string>() : std::optional<std::string>(r.message));
  if (r.outcome == kMismatch || r.outcome == kSuccess) {
    st.bind(11, r.max_abs_diff).bind(12, r.max_rel_diff);
  } else {
    st.bind_null(11).bind_null(12);
  }
  if (r.ops.empty()) {
    st.bind_null(13).bind_null(14);
  } else {
    st.bind(13, r.ops.dump()).bind(14, r.graph_json().dump());
  }
  st.bind(15, r.durations.dump());
  st.bind(16, task.seed);
  st.bind(17, task.family.empty() ? std::optional<std::string>()
                                  : std::optional<std::string>(task.family));
  st.run();
  store_model_measures(db, campaign, task.seq, r);
  tx.commit();
}

std::string model_store_for(const std::string& db_path) {
  fs::path dir = fs::absolute(db_path).parent_path();
  return (dir / "convfail-data" / "models").string();
}

std::string group_model_file(Db& db, std::int64_t group_id, const std::string& store_dir) {
  auto st = db.prepare(
      "SELECT g.minimised_sha256, m.model_sha256 FROM campaign_groups g "
      "LEFT JOIN campaign_models m ON m.campaign_id = g.campaign_id AND m.seq = "
      "g.representative_seq WHERE g.id = ?");
  st.bind(1, group_id);
  const std::string name = "campaign group " + std::to_string(group_id);
  if (!st.step()) throw UserError(name + " not found (convfail test groups lists them)");
  std::string sha = st.text(0).empty() ? st.text(1) : st.text(0);
  if (sha.empty()) throw UserError(name + " has no model file (it failed before export)");
  fs::path model = fs::path(store_dir) / sha / "model.onnx";
  if (!fs::is_regular_file(model))
    throw UserError(name + ": its model " + sha.substr(0, 12) + " is not in " + store_dir);
  return model.string();
}

GroupRun group_run(Db& db, std::int64_t group_id, const std::string& store_dir) {
  GroupRun g;
  g.model = group_model_file(db, group_id, store_dir);
  for (int k = 0;; ++k) {
    fs::path set = fs::path(g.model).parent_path() / ("set_" + std::to_string(k));
    if (!fs::is_regular_file(set / "output_0.pb")) break;
    g.input_sets.push_back(set.string());
  }
  auto st = db.prepare("SELECT campaign_id FROM campaign_groups WHERE id = ?");
  st.bind(1, group_id);
  if (st.step()) {
    OracleOptions o = oracle_options_from_config(campaign_config(db, st.int64(0)));
    g.rtol = o.rtol;
    g.atol = o.atol;
  }
  return g;
}

std::string store_model_files(const ModelResult& r, const std::string& store_dir) {
  if (!r.has_model) return "";
  // model_dir holds what the oracle took out of the worker's folder; it is read the same one way
  // (regular files only, no link followed, capped) all the same.
  std::string why;
  int fd = exec::open_child_file(r.model_dir, "model.onnx", &why);
  if (fd < 0) return "";
  close(fd);
  // Its external data files (a model over 2 GiB) are part of what the hash identifies.
  std::string sha = repro::model_sha256((fs::path(r.model_dir) / "model.onnx").string());
  fs::path dest = fs::path(store_dir) / sha;
  std::error_code ec;
  if (fs::is_directory(dest, ec)) return sha;
  fs::create_directories(store_dir);
  std::random_device rd;
  fs::path tmp = fs::path(store_dir) / (".tmp-" + sha + "-" + std::to_string(rd()));
  exec::ChildFileLimits limits;  // the one cap on a model's bytes (repro/model_files.h)
  limits.max_file_bytes = limits.max_total_bytes = repro::kMaxModelBytes;
  if (!exec::copy_child_tree(r.model_dir, "", tmp.string(), limits, nullptr, &why))
    throw UserError("cannot copy the model into " + store_dir + ": " + why);
  fs::rename(tmp, dest, ec);
  if (ec) exec::remove_child_tree(tmp.string());  // another job stored the same model first
  return sha;
}

StatusCounts campaign_status(Db& db, std::int64_t id) {
  StatusCounts s;
  s.campaign = id;
  auto c = db.prepare("SELECT config_json, versions_json, finished_at FROM campaigns WHERE id = ?");
  c.bind(1, id);
  if (!c.step()) throw UserError("no campaign " + std::to_string(id));
  s.config = json::parse(c.text(0), nullptr, false);
  s.versions = json::parse(c.text(1), nullptr, false);
  s.finished = !c.is_null(2);
  for (const auto& o : outcome_classes()) {
    auto st =
        db.prepare("SELECT count(*) FROM campaign_models WHERE campaign_id = ? AND outcome = ?");
    st.bind(1, id).bind(2, o);
    st.step();
    s.outcomes.emplace_back(o, st.int64(0));
    s.planned += st.int64(0);
  }
  auto m = db.prepare(
      "SELECT mismatch_mode, count(*) FROM campaign_models WHERE campaign_id = ? AND outcome = "
      "'mismatch' GROUP BY mismatch_mode ORDER BY mismatch_mode");
  m.bind(1, id);
  while (m.step()) s.mismatch_modes.emplace_back(m.text(0), m.int64(1));
  auto g = db.prepare("SELECT count(*) FROM campaign_groups WHERE campaign_id = ?");
  g.bind(1, id);
  g.step();
  s.groups = g.int64(0);
  return s;
}

namespace {

json parsed_or_null(const std::string& text) {
  json j = json::parse(text.empty() ? "null" : text, nullptr, false);
  return j.is_discarded() ? json() : j;
}

constexpr const char* kModelColumns =
    "seq, source, name, COALESCE(family, ''), outcome, COALESCE(mismatch_mode, ''), "
    "COALESCE(signature, ''), COALESCE(message, ''), nodes, seed, group_id, "
    "COALESCE(model_sha256, ''), max_abs_diff, max_rel_diff, operators_json, graph_json, "
    "COALESCE(durations_json, '')";

StoredModel model_from(const Stmt& st) {
  StoredModel m;
  m.seq = st.int64(0);
  m.source = st.text(1);
  m.name = st.text(2);
  m.family = st.text(3);
  m.outcome = st.text(4);
  m.mismatch_mode = st.text(5);
  m.signature = st.text(6);
  m.message = st.text(7);
  m.nodes = st.opt_int64(8);
  m.seed = st.opt_int64(9);
  m.group_id = st.opt_int64(10);
  m.model_sha256 = st.text(11);
  if (!st.is_null(12)) m.max_abs_diff = st.real(12);
  if (!st.is_null(13)) m.max_rel_diff = st.real(13);
  m.operators_json = st.opt_text(14);
  m.graph_json = st.opt_text(15);
  m.durations_json = st.text(16);
  return m;
}

constexpr const char* kGroupColumns =
    "id, campaign_id, outcome, signature, size, representative_seq, original_nodes, "
    "minimised_nodes, COALESCE(minimised_sha256, ''), COALESCE(minimised_program, ''), "
    "minimised_graph_json, candidates_json, labels_json";

StoredGroup group_from(const Stmt& st) {
  StoredGroup g;
  g.id = st.int64(0);
  g.campaign = st.int64(1);
  g.outcome = st.text(2);
  g.signature = st.text(3);
  g.size = st.int64(4);
  g.representative_seq = st.opt_int64(5);
  g.original_nodes = st.opt_int64(6);
  g.minimised_nodes = st.opt_int64(7);
  g.minimised_sha256 = st.text(8);
  g.minimised_program = st.text(9);
  g.minimised_graph_json = st.opt_text(10);
  g.candidates_json = st.opt_text(11);
  g.labels_json = st.opt_text(12);
  return g;
}

std::optional<std::string> opt(const std::string& s) {
  return s.empty() ? std::optional<std::string>() : std::optional<std::string>(s);
}

}  // namespace

StoredCampaign load_campaign(Db& db, std::int64_t id) {
  auto st = db.prepare(
      "SELECT created_at, finished_at, config_json, versions_json FROM campaigns WHERE id = ?");
  st.bind(1, id);
  if (!st.step())
    throw UserError("campaign " + std::to_string(id) +
                    " not found (`convfail test run` creates campaigns)");
  StoredCampaign c;
  c.id = id;
  c.created_at = st.text(0);
  c.finished_at = st.opt_text(1);
  c.config = parsed_or_null(st.text(2));
  c.versions = parsed_or_null(st.text(3));
  return c;
}

std::vector<StoredModel> load_models(Db& db, std::int64_t campaign) {
  auto st = db.prepare(std::string("SELECT ") + kModelColumns +
                       " FROM campaign_models WHERE campaign_id = ? ORDER BY seq");
  st.bind(1, campaign);
  std::vector<StoredModel> out;
  while (st.step()) out.push_back(model_from(st));
  return out;
}

std::optional<StoredModel> load_model(Db& db, std::int64_t campaign, std::int64_t seq) {
  auto st = db.prepare(std::string("SELECT ") + kModelColumns +
                       " FROM campaign_models WHERE campaign_id = ? AND seq = ?");
  st.bind(1, campaign).bind(2, seq);
  if (!st.step()) return std::nullopt;
  return model_from(st);
}

std::vector<StoredGroup> load_groups(Db& db, std::int64_t campaign) {
  auto st = db.prepare(std::string("SELECT ") + kGroupColumns +
                       " FROM campaign_groups WHERE campaign_id = ? ORDER BY size DESC, id");
  st.bind(1, campaign);
  std::vector<StoredGroup> out;
  while (st.step()) out.push_back(group_from(st));
  return out;
}

std::optional<StoredGroup> load_group(Db& db, std::int64_t group_id) {
  auto st =
      db.prepare(std::string("SELECT ") + kGroupColumns + " FROM campaign_groups WHERE id = ?");
  st.bind(1, group_id);
  if (!st.step()) return std::nullopt;
  return group_from(st);
}

void store_groups(Db& db, std::int64_t campaign, const std::vector<GroupPlan>& groups) {
  Transaction tx(db);
  std::set<std::int64_t> keep;
  for (const auto& g : groups) {
    auto find = db.prepare(
        "SELECT id, representative_seq FROM campaign_groups WHERE campaign_id = ? AND outcome = ? "
        "AND signature = ?");
    find.bind(1, campaign).bind(2, g.outcome).bind(3, g.signature);
    std::optional<std::int64_t> nodes;
    if (g.representative_nodes > 0) nodes = g.representative_nodes;
    std::int64_t id;
    if (find.step()) {
      id = find.int64(0);
      if (!find.is_null(1) && find.int64(1) == g.representative_seq) {
        auto up = db.prepare("UPDATE campaign_groups SET size = ? WHERE id = ?");
        up.bind(1, g.size).bind(2, id);
        up.run();
      } else {  // another representative: its minimisation no longer applies
        auto up = db.prepare(
            "UPDATE campaign_groups SET size = ?, representative_seq = ?, original_nodes = ?, "
            "minimised_nodes = NULL, minimised_sha256 = NULL, minimised_program = NULL, "
            "minimised_graph_json = NULL WHERE id = ?");
        up.bind(1, g.size).bind(2, g.representative_seq);
        if (nodes)
          up.bind(3, *nodes);
        else
          up.bind_null(3);
        up.bind(4, id);
        up.run();
      }
    } else {
      auto ins = db.prepare(
          "INSERT INTO campaign_groups (campaign_id, outcome, signature, size, "
          "representative_seq, original_nodes) VALUES (?,?,?,?,?,?)");
      ins.bind(1, campaign).bind(2, g.outcome).bind(3, g.signature).bind(4, g.size);
      ins.bind(5, g.representative_seq);
      if (nodes)
        ins.bind(6, *nodes);
      else
        ins.bind_null(6);
      ins.run();
      id = db.last_insert_id();
    }
    keep.insert(id);
    auto set = db.prepare(
        "UPDATE campaign_models SET group_id = ? WHERE campaign_id = ? AND outcome = ? AND "
        "COALESCE(signature, '') = ?");
    set.bind(1, id).bind(2, campaign).bind(3, g.outcome).bind(4, g.signature);
    set.run();
  }
  auto all = db.prepare("SELECT id FROM campaign_groups WHERE campaign_id = ?");
  all.bind(1, campaign);
  std::vector<std::int64_t> gone;
  while (all.step())
    if (!keep.count(all.int64(0))) gone.push_back(all.int64(0));
  for (auto id : gone) {
    auto del = db.prepare("DELETE FROM campaign_groups WHERE id = ?");
    del.bind(1, id);
    del.run();
  }
  tx.commit();
}

void set_group_matches(Db& db, std::int64_t group_id, const json& candidates, const json& labels) {
  Transaction tx(db);
  auto up =
      db.prepare("UPDATE campaign_groups SET candidates_json = ?, labels_json = ? WHERE id = ?");
  up.bind(1, candidates.dump()).bind(2, labels.dump()).bind(3, group_id);
  up.run();
  tx.commit();
}

void set_group_minimised(Db& db, std::int64_t group_id, std::int64_t nodes,
                         const std::string& sha256, const std::string& program,
                         const std::optional<json>& graph) {
  Transaction tx(db);
  auto up = db.prepare(
      "UPDATE campaign_groups SET minimised_nodes = ?, minimised_sha256 = ?, "
      "minimised_program = ?, minimised_graph_json = ? WHERE id = ?");
  up.bind(1, nodes).bind(2, opt(sha256)).bind(3, program);
  if (graph)
    up.bind(4, graph->dump());
  else
    up.bind_null(4);
  up.bind(5, group_id);
  up.run();
  tx.commit();
}

std::vector<CampaignListing> list_campaigns(Db& db) {
  auto st = db.prepare("SELECT id, created_at, finished_at FROM campaigns ORDER BY id DESC");
  std::vector<CampaignListing> out;
  while (st.step()) out.push_back({st.int64(0), st.text(1), st.opt_text(2)});
  return out;
}

// ---- test compare and test merge (#42) ----

namespace {

std::optional<double> opt_real(Stmt& st, int col) {
  return st.is_null(col) ? std::nullopt : std::optional<double>(st.real(col));
}

void bind_opt_real(Stmt& st, int index, const std::optional<double>& v) {
  if (v)
    st.bind(index, *v);
  else
    st.bind_null(index);
}

}  // namespace

void for_each_model_row(Db& db, std::int64_t campaign,
                        const std::function<void(const StoredModelRow&)>& fn, int after,
                        int limit) {
  auto st = db.prepare(
      "SELECT seq, source, name, nodes, model_sha256, outcome, mismatch_mode, signature, message, "
      "max_abs_diff, max_rel_diff, operators_json, graph_json, durations_json, seed, family, "
      "min_tolerance, difference_kind, dtypes_json FROM campaign_models WHERE campaign_id = ? AND "
      "seq > ? ORDER BY seq LIMIT ?");
  st.bind(1, campaign).bind(2, after).bind(3, limit);
  while (st.step()) {
    StoredModelRow r;
    r.seq = static_cast<int>(st.int64(0));
    r.source = st.text(1);
    r.name = st.text(2);
    r.nodes = st.opt_int64(3);
    r.model_sha256 = st.opt_text(4);
    r.outcome = st.text(5);
    r.mismatch_mode = st.opt_text(6);
    r.signature = st.opt_text(7);
    r.message = st.opt_text(8);
    r.max_abs_diff = opt_real(st, 9);
    r.max_rel_diff = opt_real(st, 10);
    r.operators_json = st.opt_text(11);
    r.graph_json = st.opt_text(12);
    r.durations_json = st.opt_text(13);
    r.seed = st.opt_int64(14);
    r.family = st.opt_text(15);
    r.min_tolerance = opt_real(st, 16);
    r.difference_kind = st.opt_text(17);
    r.dtypes_json = st.opt_text(18);
    fn(r);
  }
}

int insert_missing_model_rows(Db& db, std::int64_t campaign,
                              const std::vector<StoredModelRow>& rows) {
  Transaction tx(db);
  auto st = db.prepare(
      "INSERT OR IGNORE INTO campaign_models (campaign_id, seq, source, name, nodes, "
      "model_sha256, outcome, mismatch_mode, signature, message, max_abs_diff, max_rel_diff, "
      "operators_json, graph_json, durations_json, seed, family, min_tolerance, difference_kind, "
      "dtypes_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  int added = 0;
  for (const auto& r : rows) {
    st.bind(1, campaign).bind(2, r.seq).bind(3, r.source).bind(4, r.name).bind(5, r.nodes);
    st.bind(6, r.model_sha256).bind(7, r.outcome).bind(8, r.mismatch_mode);
    st.bind(9, r.signature).bind(10, r.message);
    bind_opt_real(st, 11, r.max_abs_diff);
    bind_opt_real(st, 12, r.max_rel_diff);
    st.bind(13, r.operators_json).bind(14, r.graph_json).bind(15, r.durations_json);
    st.bind(16, r.seed).bind(17, r.family);
    bind_opt_real(st, 18, r.min_tolerance);
    st.bind(19, r.difference_kind).bind(20, r.dtypes_json);
    st.run();
    added += db.changes();
  }
  tx.commit();
  return added;
}

std::vector<StoredCampaign> stored_campaigns(Db& db) {
  std::vector<StoredCampaign> out;
  auto st = db.prepare(
      "SELECT id, config_json, versions_json, finished_at, created_at FROM campaigns ORDER BY id");
  while (st.step()) {
    StoredCampaign c;
    c.id = st.int64(0);
    c.config = json::parse(st.text(1), nullptr, false);
    c.versions = json::parse(st.text(2), nullptr, false);
    if (c.config.is_discarded()) c.config = nullptr;
    if (c.versions.is_discarded()) c.versions = nullptr;
    c.finished_at = st.opt_text(3);
    c.created_at = st.text(4);
    out.push_back(std::move(c));
  }
  return out;
}

// ---- #44: the tolerance curve, the per-type table and missing kernels (schema 0022) ----

void store_model_measures(Db& db, std::int64_t campaign, int seq, const ModelResult& r) {
  auto st = db.prepare(
      "UPDATE campaign_models SET min_tolerance = ?, difference_kind = ?, dtypes_json = ? "
      "WHERE campaign_id = ? AND seq = ?");
  const bool compared = (r.outcome == kMismatch || r.outcome == kSuccess) && r.min_tolerance >= 0;
  if (compared)
    st.bind(1, std::min(r.min_tolerance, 1e308));
  else
    st.bind_null(1);
  st.bind(2, compared && !r.difference_kind.empty() ? std::optional<std::string>(r.difference_kind)
                                                    : std::optional<std::string>());
  st.bind(3, r.dtypes.empty() ? std::optional<std::string>()
                              : std::optional<std::string>(json(r.dtypes).dump()));
  st.bind(4, campaign).bind(5, seq);
  st.run();
}

std::vector<ModelMeasures> load_model_measures(Db& db, std::int64_t campaign) {
  auto st = db.prepare(
      "SELECT seq, source, name, outcome, signature, message, min_tolerance, difference_kind, "
      "dtypes_json, group_id FROM campaign_models WHERE campaign_id = ? ORDER BY seq");
  st.bind(1, campaign);
  std::vector<ModelMeasures> out;
  while (st.step()) {
    ModelMeasures m;
    m.seq = st.int64(0);
    m.source = st.text(1);
    m.name = st.text(2);
    m.outcome = st.text(3);
    m.signature = st.text(4);
    m.message = st.text(5);
    if (!st.is_null(6)) m.min_tolerance = st.real(6);
    m.difference_kind = st.text(7);
    if (!st.is_null(8)) {
      json d = json::parse(st.text(8), nullptr, false);
      bool ok = d.is_array();
      for (const auto& x : ok ? d : json::array()) ok = ok && x.is_string();
      if (!ok)
        throw UserError("campaign " + std::to_string(campaign) + " model " + std::to_string(m.seq) +
                        " dtypes_json: not a list of type names");
      m.dtypes = d.get<std::vector<std::string>>();
    }
    m.group_id = st.opt_int64(9);
    out.push_back(std::move(m));
  }
  return out;
}

std::map<std::int64_t, std::string> representative_messages(Db& db, std::int64_t campaign) {
  auto st = db.prepare(
      "SELECT g.id, m.message FROM campaign_groups g JOIN campaign_models m ON m.campaign_id = "
      "g.campaign_id AND m.seq = g.representative_seq WHERE g.campaign_id = ? AND m.message IS "
      "NOT NULL AND m.message != ''");
  st.bind(1, campaign);
  std::map<std::int64_t, std::string> out;
  while (st.step()) out[st.int64(0)] = st.text(1);
  return out;
}

}  // namespace convfail::testing
