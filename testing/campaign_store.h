// The campaign tables (schema/0012_campaigns.sql and later): this file alone runs SQL on them
// (tests/architecture.sh checks it); the rest of testing/, the CLI and the web read and write
// through the functions below, as plain data. Short transactions: one per model row, one for a
// regrouping, one per group update.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/db.h"
#include "testing/oracle.h"
#include "testing/plan.h"

namespace convfail::testing {

// The unfinished or finished campaign with this exact configuration, else nullopt.
std::optional<std::int64_t> find_campaign(Db& db, const nlohmann::json& config);
std::int64_t create_campaign(Db& db, const nlohmann::json& config, const nlohmann::json& versions);
void finish_campaign(Db& db, std::int64_t id);
// The latest campaign's id; throws UserError when there is none.
std::int64_t latest_campaign(Db& db);
nlohmann::json campaign_config(Db& db, std::int64_t id);  // throws UserError when unknown

std::set<int> stored_seqs(Db& db, std::int64_t id);

// Stores one model's row (replacing any earlier one at that seq).
void store_model(Db& db, std::int64_t campaign, const ModelTask& task, const ModelResult& r,
                 const std::string& model_sha256);

// Copies the worker's output folder into the content-addressed store (STORE/<sha256 of
// model.onnx>/: model.onnx, program.py, spec.json, set_k/) unless there; returns the sha256 (""
// when there is no model).
std::string store_model_files(const ModelResult& r, const std::string& store_dir);

// <dir of db>/convfail-data/models.
std::string model_store_for(const std::string& db_path);

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

struct StatusCounts {
  std::int64_t campaign = 0;
  std::int64_t planned = 0;  // rows stored
  bool finished = false;
  std::vector<std::pair<std::string, std::int64_t>> outcomes;  // outcome_classes() order
  std::vector<std::pair<std::string, std::int64_t>> mismatch_modes;
  std::int64_t groups = 0;
  nlohmann::json versions, config;
};
StatusCounts campaign_status(Db& db, std::int64_t id);

// One stored campaign: its configuration and the versions it ran with.
struct StoredCampaign {
  std::int64_t id = 0;
  std::string created_at;
  std::optional<std::string> finished_at;
  nlohmann::json config, versions;  // null when the stored text is not JSON
};
StoredCampaign load_campaign(Db& db, std::int64_t id);  // UserError when unknown

// One stored model row.
struct StoredModel {
  std::int64_t seq = 0;
  std::string source, name, family, outcome, mismatch_mode, signature, message;
  std::optional<std::int64_t> nodes, seed, group_id;
  std::string model_sha256;
  std::optional<double> max_abs_diff, max_rel_diff;
  std::optional<std::string> operators_json, graph_json;
  std::string durations_json;
};
// Every model row of a campaign, by seq.
std::vector<StoredModel> load_models(Db& db, std::int64_t campaign);
std::optional<StoredModel> load_model(Db& db, std::int64_t campaign, std::int64_t seq);

// One stored failure group.
struct StoredGroup {
  std::int64_t id = 0, campaign = 0;
  std::string outcome, signature;
  std::int64_t size = 0;
  std::optional<std::int64_t> representative_seq, original_nodes, minimised_nodes;
  std::string minimised_sha256, minimised_program;
  std::optional<std::string> minimised_graph_json, candidates_json, labels_json;
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
// A group's candidate issues and classifier labels (JSON texts).
void set_group_matches(Db& db, std::int64_t group_id, const nlohmann::json& candidates,
                       const nlohmann::json& labels);
// A group's minimised model.
void set_group_minimised(Db& db, std::int64_t group_id, std::int64_t nodes,
                         const std::string& sha256, const std::string& program,
                         const std::optional<nlohmann::json>& graph);

// One stored campaign as a list shows it (`serve`'s campaign page).
struct CampaignListing {
  std::int64_t id = 0;
  std::string created_at;
  std::optional<std::string> finished_at;  // none while running or interrupted
};
// Every campaign, newest first.
std::vector<CampaignListing> list_campaigns(Db& db);

// ---- test compare and test merge (#42): whole model rows, every campaign's configuration ----

// One campaign_models row as stored (NULLs kept), group_id left out: what `test merge` copies
// and `test compare` matches.
struct StoredModelRow {
  int seq = 0;
  std::string source, name;
  std::optional<std::int64_t> nodes;
  std::optional<std::string> model_sha256;
  std::string outcome;
  std::optional<std::string> mismatch_mode, signature, message;
  std::optional<double> max_abs_diff, max_rel_diff;
  std::optional<std::string> operators_json, graph_json, durations_json;
  std::optional<std::int64_t> seed;  // schema 0019
  std::optional<std::string> family;
  std::optional<double> min_tolerance;  // schema 0022
  std::optional<std::string> difference_kind, dtypes_json;
};

// Calls `fn` on each model row of the campaign in seq order (one row in memory at a time): those
// after seq `after`, at most `limit` of them (-1: all).
void for_each_model_row(Db& db, std::int64_t campaign,
                        const std::function<void(const StoredModelRow&)>& fn, int after = -1,
                        int limit = -1);

// Inserts the rows whose seq the campaign does not hold yet (a stored row is never replaced), in
// one short transaction; returns how many were added.
int insert_missing_model_rows(Db& db, std::int64_t campaign,
                              const std::vector<StoredModelRow>& rows);

// Every stored campaign, oldest first, with its configuration and versions (parsed; a malformed
// one is json(nullptr)).
std::vector<StoredCampaign> stored_campaigns(Db& db);
// ---- #44: the tolerance curve, the per-type table and missing kernels (schema 0022) ----

// Writes a model row's min_tolerance, difference_kind, dtypes_json and main_dtype (store_model
// calls it in its transaction).
void store_model_measures(Db& db, std::int64_t campaign, int seq, const ModelResult& r);

// What the report counts per model beyond campaign_analysis's rows.
struct ModelMeasures {
  std::int64_t seq = 0;
  std::string source, name, outcome, signature, message;
  std::optional<double> min_tolerance;  // compared models; 1e308 and above: no tolerance passes
  std::string difference_kind;
  std::optional<std::vector<std::string>> dtypes;  // none: not recorded (not synthetic, older)
  std::string main_dtype;  // schema 0023: a synthetic model's main type; "": not recorded
  std::optional<std::int64_t> group_id;
};
// Every model row of the campaign, by seq. A dtypes_json that is not a list of strings is a
// UserError naming the row.
std::vector<ModelMeasures> load_model_measures(Db& db, std::int64_t campaign);

// Group id -> its representative model's message as said (cut, escaped when stored), for every
// group of the campaign whose representative has one.
std::map<std::int64_t, std::string> representative_messages(Db& db, std::int64_t campaign);

}  // namespace convfail::testing
