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
      "operators_json, graph_json, durations_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
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
  st.run();
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
  exec::ChildFileLimits limits;
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

std::vector<CampaignListing> list_campaigns(Db& db) {
  auto st = db.prepare("SELECT id, created_at, finished_at FROM campaigns ORDER BY id DESC");
  std::vector<CampaignListing> out;
  while (st.step()) out.push_back({st.int64(0), st.text(1), st.opt_text(2)});
  return out;
}

}  // namespace convfail::testing
