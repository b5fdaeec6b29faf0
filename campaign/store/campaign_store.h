// The campaign tables (schema/0012_campaigns.sql and later): this file alone runs SQL on them
// (tests/architecture.sh checks it), with one row type and one reader per table: StoredCampaign
// (campaigns), StoredModel (campaign_models), StoredGroup (campaign_groups). The rest of campaign/,
// the CLI and the web read and write through the functions below, as plain data. Short
// transactions: one per batch of model rows, one for a regrouping, one per group update.
//
// "No value" is one convention in every row: NULL reads as "" (texts), nullopt (numbers),
// json(nullptr) (JSON columns) or an empty list (dtypes), and is written back as NULL.
// JSON columns are parsed here, once, with one rule: a stored text that is not JSON, or not of its
// column's shape (a list, an object), reads as no value and its column is named in the row's
// `malformed` (the analysis counts such rows; `test merge` refuses them).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/db.h"

namespace convfail::campaign {

// ---- campaigns ----

// One campaigns row: its configuration (CampaignConfig::to_json plus "ort" and "shard") and the
// versions it ran with.
struct StoredCampaign {
  std::int64_t id = 0;
  std::string created_at;
  std::optional<std::string> finished_at;  // none while running, interrupted or partly merged
  nlohmann::json config, versions;         // null when the stored text is not a JSON object
  std::vector<std::string> malformed;      // "config_json", "versions_json"
  bool finished() const { return finished_at.has_value(); }
};

// Every campaign, oldest first.
std::vector<StoredCampaign> load_campaigns(Db& db);
// UserError when unknown.
StoredCampaign load_campaign(Db& db, std::int64_t id);
// The newest campaign with exactly this configuration, else nullopt. A campaign stored before the
// key held its ONNX Runtime release ("ort") matches when its versions name that release.
std::optional<std::int64_t> find_campaign(Db& db, const nlohmann::json& config);
std::int64_t create_campaign(Db& db, const nlohmann::json& config, const nlohmann::json& versions);
void finish_campaign(Db& db, std::int64_t id);
// The latest campaign's id; throws UserError when there is none.
std::int64_t latest_campaign(Db& db);

// ---- campaign_models ----

// One campaign_models row: a planned model and its outcome.
struct StoredModel {
  int seq = 0;
  std::string source, name, family, outcome, mismatch_mode, signature, message;
  std::optional<std::int64_t> nodes, seed, group_id;
  std::string model_sha256;  // the content-addressed folder of its files ("" before export)
  std::optional<double> max_abs_diff, max_rel_diff;  // compared models
  // Compared models: the smallest t with atol = rtol = t at which every comparison passes (1e308
  // and above: none does) and the kind of difference that needs it (schema 0022).
  std::optional<double> min_tolerance;
  std::string difference_kind;
  // How the harness ran it when not as exported (float16 fed through boundary Casts; schema 0026).
  std::string harness_note;
  nlohmann::json operators;         // ["Conv", ...] in node order
  nlohmann::json graph;             // {"ops": [...], "edges": [[from, to], ...]}
  nlohmann::json durations;         // {"step": seconds, ...}
  std::vector<std::string> dtypes;  // the tensor types it uses (synthetic models)
  std::string main_dtype;           // a synthetic model's main type (schema 0023)
  // JSON columns that did not parse as their shape, and columns whose stored value is not of
  // their type (a REAL seq, a TEXT nodes: SQLite's typeof()).
  std::vector<std::string> malformed;
};

// What read_models reads: a range of seq (those after `after`, at most `limit`; -1: all) or one
// seq, with or without the graph columns (operators, graph: the large ones).
struct ModelQuery {
  int after = -1;
  int limit = -1;
  std::optional<int> seq;
  bool graphs = true;
};
// The one reader: calls `fn` on each row of the campaign the query selects, in seq order, one row
// in memory at a time.
void read_models(Db& db, std::int64_t campaign, const std::function<void(StoredModel&&)>& fn,
                 const ModelQuery& query = {});
// Every row of the campaign, by seq (read_models).
std::vector<StoredModel> load_models(Db& db, std::int64_t campaign, bool graphs = true);
std::optional<StoredModel> load_model(Db& db, std::int64_t campaign, int seq);
// The seqs stored (no other column).
std::set<int> stored_seqs(Db& db, std::int64_t campaign);

// The one writer of model rows, in one short transaction: kReplace replaces a row stored at the
// same seq (a run), kKeep never does (`test merge`: a row already stored is kept). group_id is not
// written (store_groups sets it). Returns the rows written.
enum class RowWrite { kReplace, kKeep };
int store_models(Db& db, std::int64_t campaign, const std::vector<StoredModel>& rows,
                 RowWrite mode);

// ---- the content-addressed model files ----

// <dir of db>/convfail-data/models.
std::string model_store_for(const std::string& db_path);

// Copies a model's folder (model.onnx with its external data, program.py, spec.json, set_k/: what
// the oracle took out of the worker's folder, read the one safe way all the same) into the store
// as STORE/<sha256 of model.onnx and its data>/ unless there (a folder there whose model does not
// hash to its name is replaced); returns the sha256 ("" when the folder holds no model.onnx).
std::string store_model_files(const std::string& model_dir, const std::string& store_dir);

// Whether STORE/<sha>/ is a folder (not a link) whose model.onnx with its external data hashes to
// `sha` (repro/model_files' model_sha256): the only "already stored" folder trusted.
bool model_folder_intact(const std::string& store_dir, const std::string& sha);
// Renames the folder `tmp` (a copy made in store_dir) to STORE/<sha>/ once its model hashes to
// `sha` (else removes it and throws UserError); a folder there that is not intact is set aside and
// removed first. False when another process stored an intact one meanwhile (tmp removed).
bool install_model_folder(const std::string& tmp, const std::string& store_dir,
                          const std::string& sha);

// The model file that stands for a failure group: its minimised model, else its representative
// (smallest) model. UserError when the group does not exist or its file is not in STORE.
std::string group_model_file(Db& db, std::int64_t group_id, const std::string& store_dir);

// What runs a group's model again as the campaign ran it (bisect --group): the model file
// (group_model_file), every input set the campaign stored beside it with torch's outputs
// (STORE/<sha>/set_K/ holding output_0.pb, in K order) and the campaign's tolerances.
struct GroupRun {
  std::string model;
  std::vector<std::string> input_sets;
  double rtol = 1e-3, atol = 1e-7;
};
GroupRun group_run(Db& db, std::int64_t group_id, const std::string& store_dir);

// ---- campaign_groups ----

// One stored failure group.
struct StoredGroup {
  std::int64_t id = 0, campaign = 0;
  std::string outcome, signature;
  std::int64_t size = 0;
  std::optional<std::int64_t> representative_seq, original_nodes, minimised_nodes;
  std::string minimised_sha256, minimised_program;
  nlohmann::json minimised_graph;  // {"ops", "edges"} of the minimised model
  nlohmann::json candidates;       // [{"issue", "score", "why"}, ...]
  nlohmann::json labels;           // {"symptom": "...", ...}
  std::vector<std::string> malformed;
};
// A campaign's groups, largest first (then by id).
std::vector<StoredGroup> load_groups(Db& db, std::int64_t campaign);
std::optional<StoredGroup> load_group(Db& db, std::int64_t group_id);

// The groups a regrouping decided: one per (outcome, signature), with its representative.
struct GroupPlan {
  std::string outcome, signature;
  std::int64_t size = 0;
  std::int64_t representative_seq = -1;
  std::int64_t representative_nodes = 0;  // 0: unknown
};
// Stores them in one transaction: a group that exists keeps its id (and its minimisation when
// its representative is the same), groups no longer planned go, campaign_models.group_id is set.
void store_groups(Db& db, std::int64_t campaign, const std::vector<GroupPlan>& groups);
// A group's candidate issues and classifier labels.
void set_group_matches(Db& db, std::int64_t group_id, const nlohmann::json& candidates,
                       const nlohmann::json& labels);
// A group's minimised model.
void set_group_minimised(Db& db, std::int64_t group_id, std::int64_t nodes,
                         const std::string& sha256, const std::string& program,
                         const nlohmann::json& graph);

// ---- what a campaign holds, counted ----

struct StatusCounts {
  StoredCampaign campaign;
  std::int64_t planned = 0;                                    // rows stored
  std::vector<std::pair<std::string, std::int64_t>> outcomes;  // outcome_classes() order
  std::vector<std::pair<std::string, std::int64_t>> mismatch_modes;
  std::int64_t groups = 0;
  std::int64_t harness_notes = 0;  // models the harness ran other than as exported (schema 0026)
  // The not_run models' reasons (their messages as stored), most frequent first.
  std::vector<std::pair<std::string, std::int64_t>> not_run_reasons;
  // As `test status --json` and the web's /api/campaigns list it: "id" (also as "campaign"),
  // "created_at", "finished_at", "finished", "models", "outcomes", "mismatch_modes", "groups",
  // "harness_notes", "not_run_reasons" ([{"reason", "models"}]), "config", "versions".
  nlohmann::json to_json() const;
};
StatusCounts campaign_status(Db& db, std::int64_t id);  // UserError when unknown

// ---- #48: how the harness ran a model, and what it could not run (schema 0026) ----

}  // namespace convfail::campaign
