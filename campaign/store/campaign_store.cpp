#include "campaign/store/campaign_store.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

#include <unistd.h>

#include "campaign/campaign_types.h"
#include "campaign/outcomes.h"
#include "core/error.h"
#include "exec/child_files.h"
#include "repro/model_files.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace convfail::campaign {
namespace {

enum class Shape { kAny, kList, kObject, kStringList };

// The one rule of JSON columns: NULL is no value; a text that is not JSON of the column's shape is
// no value too, and the column is named in `malformed`.
json parsed_column(const Stmt& st, int col, Shape shape, const char* name,
                   std::vector<std::string>& malformed) {
  if (st.is_null(col)) return json();
  json j = json::parse(st.text(col), nullptr, false);
  bool ok = !j.is_discarded();
  if (ok && shape == Shape::kList) ok = j.is_array();
  if (ok && shape == Shape::kObject) ok = j.is_object();
  if (ok && shape == Shape::kStringList) {
    ok = j.is_array();
    for (const auto& x : ok ? j : json::array()) ok = ok && x.is_string();
  }
  if (ok) return j;
  malformed.push_back(name);
  return json();
}

std::optional<std::string> text_or_null(const std::string& s) {
  return s.empty() ? std::optional<std::string>() : std::optional<std::string>(s);
}

std::optional<std::string> json_or_null(const json& j) {
  return j.is_null() ? std::optional<std::string>() : std::optional<std::string>(j.dump());
}

void bind_real(Stmt& st, int index, const std::optional<double>& v) {
  if (v)
    st.bind(index, *v);
  else
    st.bind_null(index);
}

// ---- campaigns ----

StoredCampaign campaign_from(const Stmt& st) {
  StoredCampaign c;
  c.id = st.int64(0);
  c.created_at = st.text(1);
  c.finished_at = st.opt_text(2);
  c.config = parsed_column(st, 3, Shape::kObject, "config_json", c.malformed);
  c.versions = parsed_column(st, 4, Shape::kObject, "versions_json", c.malformed);
  return c;
}

// The one reader of campaigns: one row (id) or all, oldest first.
std::vector<StoredCampaign> read_campaigns(Db& db, std::optional<std::int64_t> id) {
  auto st = db.prepare(
      "SELECT id, created_at, finished_at, config_json, versions_json FROM campaigns "
      "WHERE ? IS NULL OR id = ? ORDER BY id");
  st.bind(1, id).bind(2, id);
  std::vector<StoredCampaign> out;
  while (st.step()) out.push_back(campaign_from(st));
  return out;
}

// ---- campaign_models ----

constexpr const char* kModelColumns =
    "seq, source, name, family, outcome, mismatch_mode, signature, message, nodes, seed, "
    "group_id, model_sha256, max_abs_diff, max_rel_diff, min_tolerance, difference_kind, "
    "durations_json, dtypes_json, harness_note, main_dtype";
constexpr int kGraphColumn = 20;  // operators_json, graph_json follow when a query wants graphs

// A column whose stored value is not of its declared kind (SQLite keeps what it is given: a REAL
// seq, a TEXT count) is named in `malformed`, as a JSON column that does not parse is: the value
// read from it (a REAL seq cut to an integer) is not what the file holds.
void check_column_types(const Stmt& st, std::vector<std::string>& malformed) {
  using T = Stmt::Type;
  // seq, source, ..., difference_kind (kModelColumns' first 16): what each may hold.
  static const char* const kNames[] = {
      "seq",          "source",        "name",          "family",
      "outcome",      "mismatch_mode", "signature",     "message",
      "nodes",        "seed",          "group_id",      "model_sha256",
      "max_abs_diff", "max_rel_diff",  "min_tolerance", "difference_kind"};
  for (int col = 0; col < 16; ++col) {
    T t = st.type(col);
    bool ok;
    if (col == 0)
      ok = t == T::kInteger;
    else if (col == 8 || col == 9 || col == 10)
      ok = t == T::kInteger || t == T::kNull;
    else if (col >= 12 && col <= 14)
      ok = t == T::kReal || t == T::kInteger || t == T::kNull;
    else
      ok = t == T::kText || t == T::kNull;
    if (!ok) malformed.push_back(kNames[col]);
  }
}

StoredModel model_from(const Stmt& st, bool graphs) {
  StoredModel m;
  check_column_types(st, m.malformed);
  m.seq = static_cast<int>(st.int64(0));
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
  if (!st.is_null(14)) m.min_tolerance = st.real(14);
  m.difference_kind = st.text(15);
  m.durations = parsed_column(st, 16, Shape::kObject, "durations_json", m.malformed);
  json dtypes = parsed_column(st, 17, Shape::kStringList, "dtypes_json", m.malformed);
  if (dtypes.is_array()) m.dtypes = dtypes.get<std::vector<std::string>>();
  m.harness_note = st.text(18);
  m.main_dtype = st.text(19);
  if (graphs) {
    m.operators = parsed_column(st, kGraphColumn, Shape::kList, "operators_json", m.malformed);
    m.graph = parsed_column(st, kGraphColumn + 1, Shape::kObject, "graph_json", m.malformed);
  }
  return m;
}

// ---- campaign_groups ----

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
  g.minimised_graph = parsed_column(st, 10, Shape::kObject, "minimised_graph_json", g.malformed);
  g.candidates = parsed_column(st, 11, Shape::kList, "candidates_json", g.malformed);
  g.labels = parsed_column(st, 12, Shape::kObject, "labels_json", g.malformed);
  return g;
}

// The one reader of campaign_groups: a campaign's (largest first) or one group.
std::vector<StoredGroup> read_groups(Db& db, std::optional<std::int64_t> campaign,
                                     std::optional<std::int64_t> group_id) {
  auto st = db.prepare(
      "SELECT id, campaign_id, outcome, signature, size, representative_seq, original_nodes, "
      "minimised_nodes, minimised_sha256, minimised_program, minimised_graph_json, "
      "candidates_json, labels_json FROM campaign_groups WHERE (? IS NULL OR campaign_id = ?) "
      "AND (? IS NULL OR id = ?) ORDER BY size DESC, id");
  st.bind(1, campaign).bind(2, campaign).bind(3, group_id).bind(4, group_id);
  std::vector<StoredGroup> out;
  while (st.step()) out.push_back(group_from(st));
  return out;
}

}  // namespace

// ---- campaigns ----

std::vector<StoredCampaign> load_campaigns(Db& db) {
  return read_campaigns(db, std::nullopt);
}

StoredCampaign load_campaign(Db& db, std::int64_t id) {
  auto c = read_campaigns(db, id);
  if (c.empty())
    throw UserError("campaign " + std::to_string(id) +
                    " not found (`convfail test run` creates campaigns)");
  return std::move(c.front());
}

std::optional<std::int64_t> find_campaign(Db& db, const json& config) {
  std::optional<std::int64_t> found, legacy;
  json without_ort = config;
  const bool keyed = config.contains("ort") && config["ort"].is_string();
  if (keyed) without_ort.erase("ort");
  for (const StoredCampaign& c : load_campaigns(db)) {  // oldest first: the newest wins
    if (c.config == config) found = c.id;
    // A campaign stored before the key held its ONNX Runtime release: the same configuration
    // run on that release (its versions) is the same campaign.
    if (keyed && c.config == without_ort && c.versions.is_object() &&
        c.versions.value("onnxruntime", json()) == config["ort"])
      legacy = c.id;
  }
  return found ? found : legacy;
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
  auto all = load_campaigns(db);
  if (all.empty()) throw UserError("no campaign stored (run `convfail test run` first)");
  return all.back().id;
}

// ---- campaign_models ----

void read_models(Db& db, std::int64_t campaign, const std::function<void(StoredModel&&)>& fn,
                 const ModelQuery& q) {
  auto st = db.prepare(std::string("SELECT ") + kModelColumns +
                       (q.graphs ? ", operators_json, graph_json" : "") +
                       " FROM campaign_models WHERE campaign_id = ? AND seq > ? AND "
                       "(? IS NULL OR seq = ?) ORDER BY seq LIMIT ?");
  std::optional<std::int64_t> seq;
  if (q.seq) seq = *q.seq;
  st.bind(1, campaign).bind(2, q.after).bind(3, seq).bind(4, seq).bind(5, q.limit);
  while (st.step()) fn(model_from(st, q.graphs));
}

std::vector<StoredModel> load_models(Db& db, std::int64_t campaign, bool graphs) {
  std::vector<StoredModel> out;
  ModelQuery q;
  q.graphs = graphs;
  read_models(
      db, campaign, [&](StoredModel&& m) { out.push_back(std::move(m)); }, q);
  return out;
}

std::optional<StoredModel> load_model(Db& db, std::int64_t campaign, int seq) {
  std::optional<StoredModel> out;
  ModelQuery q;
  q.seq = seq;
  read_models(
      db, campaign, [&](StoredModel&& m) { out = std::move(m); }, q);
  return out;
}

std::set<int> stored_seqs(Db& db, std::int64_t campaign) {
  std::set<int> out;
  ModelQuery q;
  q.graphs = false;
  read_models(
      db, campaign, [&](StoredModel&& m) { out.insert(m.seq); }, q);
  return out;
}

int store_models(Db& db, std::int64_t campaign, const std::vector<StoredModel>& rows,
                 RowWrite mode) {
  Transaction tx(db);
  auto st = db.prepare(
      std::string(mode == RowWrite::kReplace ? "INSERT OR REPLACE" : "INSERT OR IGNORE") +
      " INTO campaign_models (campaign_id, seq, source, name, family, outcome, mismatch_mode, "
      "signature, message, nodes, seed, model_sha256, max_abs_diff, max_rel_diff, "
      "min_tolerance, difference_kind, durations_json, dtypes_json, operators_json, graph_json, "
      "harness_note, main_dtype) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  int written = 0;
  for (const StoredModel& m : rows) {
    st.bind(1, campaign).bind(2, m.seq).bind(3, m.source).bind(4, m.name);
    st.bind(5, text_or_null(m.family)).bind(6, m.outcome);
    st.bind(7, text_or_null(m.mismatch_mode)).bind(8, text_or_null(m.signature));
    st.bind(9, text_or_null(m.message)).bind(10, m.nodes).bind(11, m.seed);
    st.bind(12, text_or_null(m.model_sha256));
    bind_real(st, 13, m.max_abs_diff);
    bind_real(st, 14, m.max_rel_diff);
    bind_real(st, 15, m.min_tolerance);
    st.bind(16, text_or_null(m.difference_kind)).bind(17, json_or_null(m.durations));
    st.bind(18, m.dtypes.empty() ? std::optional<std::string>() : json(m.dtypes).dump());
    st.bind(19, json_or_null(m.operators)).bind(20, json_or_null(m.graph));
    st.bind(21, text_or_null(m.harness_note)).bind(22, text_or_null(m.main_dtype));
    st.run();
    written += db.changes();
  }
  tx.commit();
  return written;
}

// ---- the content-addressed model files ----

std::string model_store_for(const std::string& db_path) {
  fs::path dir = fs::absolute(db_path).parent_path();
  return (dir / "convfail-data" / "models").string();
}

bool model_folder_intact(const std::string& store_dir, const std::string& sha) {
  std::error_code ec;
  fs::path folder = fs::path(store_dir) / sha;
  return !fs::is_symlink(folder, ec) && exec::is_child_file(folder.string(), "model.onnx") &&
         repro::model_sha256((folder / "model.onnx").string()) == sha;
}

bool install_model_folder(const std::string& tmp, const std::string& store_dir,
                          const std::string& sha) {
  std::error_code ec;
  fs::path dest = fs::path(store_dir) / sha;
  if (repro::model_sha256((fs::path(tmp) / "model.onnx").string()) != sha) {
    exec::remove_child_tree(tmp);
    throw UserError("the model copied for " + store_dir + "/" + sha.substr(0, 12) +
                    "... does not hash to its name (refused)");
  }
  if (fs::exists(fs::symlink_status(dest, ec)) && !model_folder_intact(store_dir, sha)) {
    // A forged folder (or a link) under the name: set aside, then removed without following links.
    std::random_device rd;
    fs::path forged = fs::path(store_dir) / (".forged-" + sha + "-" + std::to_string(rd()));
    fs::rename(dest, forged, ec);
    if (fs::is_symlink(forged, ec))
      fs::remove(forged, ec);
    else
      exec::remove_child_tree(forged.string());
  }
  fs::rename(tmp, dest, ec);
  if (ec) {
    exec::remove_child_tree(tmp);  // another job stored the same model first
    return false;
  }
  return true;
}

std::string store_model_files(const std::string& model_dir, const std::string& store_dir) {
  if (model_dir.empty()) return "";
  std::string why;
  int fd = exec::open_child_file(model_dir, "model.onnx", &why);
  if (fd < 0) return "";
  close(fd);
  // Its external data files (a model over 2 GiB) are part of what the hash identifies.
  std::string sha = repro::model_sha256((fs::path(model_dir) / "model.onnx").string());
  // "Already stored" is trusted only when what is stored hashes to its name.
  if (model_folder_intact(store_dir, sha)) return sha;
  fs::create_directories(store_dir);
  std::random_device rd;
  fs::path tmp = fs::path(store_dir) / (".tmp-" + sha + "-" + std::to_string(rd()));
  exec::ChildFileLimits limits;  // the one cap on a model's bytes (repro/model_files.h)
  limits.max_file_bytes = limits.max_total_bytes = repro::kMaxModelBytes;
  if (!exec::copy_child_tree(model_dir, "", tmp.string(), limits, nullptr, &why))
    throw UserError("cannot copy the model into " + store_dir + ": " + why);
  install_model_folder(tmp.string(), store_dir, sha);
  return sha;
}

std::string group_model_file(Db& db, std::int64_t group_id, const std::string& store_dir) {
  const std::string name = "campaign group " + std::to_string(group_id);
  auto g = load_group(db, group_id);
  if (!g) throw UserError(name + " not found (convfail test groups lists them)");
  std::string sha = g->minimised_sha256;
  if (sha.empty() && g->representative_seq)
    if (auto rep = load_model(db, g->campaign, static_cast<int>(*g->representative_seq)))
      sha = rep->model_sha256;
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
  if (auto group = load_group(db, group_id)) {
    OracleOptions o = CampaignConfig::from_json(load_campaign(db, group->campaign).config).oracle;
    g.rtol = o.rtol;
    g.atol = o.atol;
  }
  return g;
}

// ---- campaign_groups ----

std::vector<StoredGroup> load_groups(Db& db, std::int64_t campaign) {
  return read_groups(db, campaign, std::nullopt);
}

std::optional<StoredGroup> load_group(Db& db, std::int64_t group_id) {
  auto g = read_groups(db, std::nullopt, group_id);
  if (g.empty()) return std::nullopt;
  return std::move(g.front());
}

void store_groups(Db& db, std::int64_t campaign, const std::vector<GroupPlan>& groups) {
  Transaction tx(db);
  std::map<std::pair<std::string, std::string>, StoredGroup> stored;
  for (auto& g : load_groups(db, campaign)) stored[{g.outcome, g.signature}] = std::move(g);
  for (const auto& g : groups) {
    std::optional<std::int64_t> nodes;
    if (g.representative_nodes > 0) nodes = g.representative_nodes;
    std::int64_t id;
    auto found = stored.find({g.outcome, g.signature});
    if (found != stored.end()) {
      id = found->second.id;
      if (found->second.representative_seq == g.representative_seq) {
        auto up = db.prepare("UPDATE campaign_groups SET size = ? WHERE id = ?");
        up.bind(1, g.size).bind(2, id);
        up.run();
      } else {  // another representative: its minimisation no longer applies
        auto up = db.prepare(
            "UPDATE campaign_groups SET size = ?, representative_seq = ?, original_nodes = ?, "
            "minimised_nodes = NULL, minimised_sha256 = NULL, minimised_program = NULL, "
            "minimised_graph_json = NULL WHERE id = ?");
        up.bind(1, g.size).bind(2, g.representative_seq).bind(3, nodes).bind(4, id);
        up.run();
      }
      stored.erase(found);
    } else {
      auto ins = db.prepare(
          "INSERT INTO campaign_groups (campaign_id, outcome, signature, size, "
          "representative_seq, original_nodes) VALUES (?,?,?,?,?,?)");
      ins.bind(1, campaign).bind(2, g.outcome).bind(3, g.signature).bind(4, g.size);
      ins.bind(5, g.representative_seq).bind(6, nodes);
      ins.run();
      id = db.last_insert_id();
    }
    auto set = db.prepare(
        "UPDATE campaign_models SET group_id = ? WHERE campaign_id = ? AND outcome = ? AND "
        "COALESCE(signature, '') = ?");
    set.bind(1, id).bind(2, campaign).bind(3, g.outcome).bind(4, g.signature);
    set.run();
  }
  for (const auto& [key, gone] : stored) {  // groups no longer planned
    auto del = db.prepare("DELETE FROM campaign_groups WHERE id = ?");
    del.bind(1, gone.id);
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
                         const std::string& sha256, const std::string& program, const json& graph) {
  Transaction tx(db);
  auto up = db.prepare(
      "UPDATE campaign_groups SET minimised_nodes = ?, minimised_sha256 = ?, "
      "minimised_program = ?, minimised_graph_json = ? WHERE id = ?");
  up.bind(1, nodes).bind(2, text_or_null(sha256)).bind(3, program);
  up.bind(4, json_or_null(graph)).bind(5, group_id);
  up.run();
  tx.commit();
}

// ---- what a campaign holds, counted ----

StatusCounts campaign_status(Db& db, std::int64_t id) {
  StatusCounts s;
  s.campaign = load_campaign(db, id);
  std::map<std::string, std::int64_t> outcomes, modes, not_run;
  ModelQuery q;
  q.graphs = false;
  read_models(
      db, id,
      [&](StoredModel&& m) {
        ++outcomes[m.outcome];
        if (m.outcome == kMismatch) ++modes[m.mismatch_mode];
        if (m.outcome == kNotRun) ++not_run[m.message];
        if (!m.harness_note.empty()) ++s.harness_notes;
      },
      q);
  s.not_run_reasons.assign(not_run.begin(), not_run.end());
  std::stable_sort(s.not_run_reasons.begin(), s.not_run_reasons.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  if (s.not_run_reasons.size() > 20) s.not_run_reasons.resize(20);
  for (const auto& o : outcome_classes()) {
    s.outcomes.emplace_back(o, outcomes[o]);
    s.planned += outcomes[o];
  }
  s.mismatch_modes.assign(modes.begin(), modes.end());
  s.groups = static_cast<std::int64_t>(load_groups(db, id).size());
  return s;
}

json StatusCounts::to_json() const {
  json out = json::object(), modes = json::object();
  for (const auto& [k, v] : outcomes) out[k] = v;
  for (const auto& [k, v] : mismatch_modes) modes[k] = v;
  json not_run_json = json::array();
  for (const auto& [reason, n] : not_run_reasons)
    not_run_json.push_back({{"reason", reason}, {"models", n}});
  return {{"id", campaign.id},
          {"campaign", campaign.id},
          {"created_at", campaign.created_at},
          {"finished_at", campaign.finished_at ? json(*campaign.finished_at) : json()},
          {"finished", campaign.finished()},
          {"models", planned},
          {"outcomes", out},
          {"mismatch_modes", modes},
          {"groups", groups},
          {"harness_notes", harness_notes},
          {"not_run_reasons", not_run_json},
          {"config", campaign.config},
          {"versions", campaign.versions}};
}

// ---- #48: how the harness ran a model, and what it could not run (schema 0026) ----

}  // namespace convfail::campaign
