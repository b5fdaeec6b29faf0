#include "campaign/run/bundle.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "campaign/run/minimise.h"
#include "campaign/run/plan.h"
#include "campaign/store/campaign_store.h"
#include "core/error.h"
#include "exec/child_files.h"
#include "exec/tensor.h"
#include "repro/model_files.h"
#include "repro/repro_command.h"
#include "repro/reproduce.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace convfail::campaign {
namespace {

// Runs the bundle's model.onnx on the campaign's first input set in ONNX Runtime (the campaign's
// release when it is installed, else the pinned one) with graph optimisations disabled and all,
// and writes each level's outputs as output_N.pb beside torch's (expected/).
json run_onnxruntime(const std::string& dir, const std::string& set0, const json& config,
                     const json& versions, json& files) {
  OracleOptions o = CampaignConfig::from_json(config).oracle;
  std::string want = o.ort_version;
  if (want.empty() && versions.is_object() && versions.contains("onnxruntime") &&
      versions["onnxruntime"].is_string())
    want = versions["onnxruntime"].get<std::string>();
  exec::RunnerOptions ro;
  try {
    ro = repro::runner_options_for(want);
  } catch (const UserError&) {
    if (!o.ort_version.empty()) throw;  // the campaign ran on it by name: install it again
    ro = exec::RunnerOptions();         // an older campaign's release that is gone: the pinned
  }
  ro.limits.wall_seconds = o.timeout_seconds;
  // A model of several GiB (external data) needs more than the runner's default address space.
  ro.limits.memory_bytes = std::max<std::uint64_t>(ro.limits.memory_bytes, o.memory_mb << 20);
  exec::OrtRunner runner(ro);
  repro::ReproOptions rop;
  rop.tolerance.atol = o.atol;
  rop.tolerance.rtol = o.rtol;
  rop.timeout_seconds = o.timeout_seconds;
  rop.inputs_dir = set0;
  rop.max_elements = std::max<std::int64_t>(o.max_elements, 1 << 20);
  rop.save_outputs = true;
  repro::RunVerdict v =
      repro::reproduce_model(runner, (fs::path(dir) / "model.onnx").string(), rop);
  for (const auto& [level, tensors] : v.outputs) {
    std::string folder = level == "all" ? "onnxruntime_optimised" : "onnxruntime_unoptimised";
    fs::create_directories(fs::path(dir) / folder);
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      if (tensors[i].elem_type == 0) continue;
      std::string rel = folder + "/output_" + std::to_string(i) + ".pb";
      try {
        exec::write_tensor_pb(tensors[i], (fs::path(dir) / rel).string());
      } catch (const std::exception& e) {
        throw UserError(std::string("bundle: ") + e.what());
      }
      files.push_back(rel);
    }
  }
  return {{"version", v.ort_version},
          {"verdict", v.verdict},
          {"step", v.step},
          {"signature", v.signature},
          {"error", v.message},
          {"max_abs_error", repro::number_or_null(v.max_abs_error)},
          {"max_rel_error", repro::number_or_null(v.max_rel_error)}};
}

}  // namespace

namespace {

// bundle.json's facts of the group, its representative and its campaign.
json bundle_info(const StoredGroup& g, const std::optional<StoredModel>& rep,
                 const StoredCampaign& c) {
  auto opt = [](const auto& v) { return v ? json(*v) : json(); };
  return {{"group", g.id},
          {"campaign", g.campaign},
          {"outcome", g.outcome},
          {"signature", g.signature},
          {"size", g.size},
          {"model", rep ? rep->name : ""},
          {"original_nodes", opt(g.original_nodes)},
          {"minimised_nodes", opt(g.minimised_nodes)},
          {"message", rep ? rep->message : ""},
          {"mismatch_mode", rep && !rep->mismatch_mode.empty() ? json(rep->mismatch_mode) : json()},
          {"max_abs_diff", rep ? opt(rep->max_abs_diff) : json()},
          {"max_rel_diff", rep ? opt(rep->max_rel_diff) : json()},
          {"candidates", g.candidates},
          {"labels", g.labels},
          {"versions", c.versions},
          {"config", c.config}};
}

// Copies the stored model's program and first input set (STORE/<sha>/: ours, read the one safe
// way all the same) into the bundle: program.py, set_0's inputs and torch's outputs.
void copy_program_and_inputs(const fs::path& src, const std::string& dir, json& files) {
  constexpr std::uint64_t kMaxFile = 4ull << 30;
  if (exec::copy_child_file(src.string(), "program.py", (fs::path(dir) / "program.py").string(),
                            kMaxFile))
    files.push_back("program.py");
  for (const auto& name : exec::child_files_in(src.string(), "set_0")) {
    std::string sub = name.rfind("input_", 0) == 0 ? "inputs" : "expected";
    fs::create_directories(fs::path(dir) / sub);
    if (exec::copy_child_file(src.string(), "set_0/" + name, (fs::path(dir) / sub / name).string(),
                              kMaxFile))
      files.push_back(sub + "/" + name);
  }
}

}  // namespace

json write_bundle(Db& db, std::int64_t group, const std::string& dir,
                  const std::string& store_dir) {
  auto g = load_group(db, group);
  if (!g) throw UserError("no group " + std::to_string(group));
  std::optional<StoredModel> rep;
  if (g->representative_seq)
    rep = load_model(db, g->campaign, static_cast<int>(*g->representative_seq));
  StoredCampaign c = load_campaign(db, g->campaign);
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec))
    throw UserError("bundle folder " + dir + " exists and is not empty");
  fs::create_directories(dir, ec);
  if (ec) throw UserError("cannot create " + dir + ": " + ec.message());
  bool minimised = g->minimised_nodes.has_value();
  std::string sha = minimised ? g->minimised_sha256 : rep ? rep->model_sha256 : "";
  json info = bundle_info(*g, rep, c);
  json files = json::array();
  fs::path src = sha.empty() ? fs::path() : fs::path(store_dir) / sha;
  if (!sha.empty() && fs::is_directory(src)) {
    // The model with its external data files (a model over 2 GiB keeps its weights there).
    if (exec::is_child_file(src.string(), "model.onnx"))
      for (const auto& f : repro::copy_model_files((src / "model.onnx").string(), dir))
        files.push_back(f);
    copy_program_and_inputs(src, dir, files);
  }
  if (!fs::exists(fs::path(dir) / "program.py") && minimised && !g->minimised_program.empty()) {
    std::ofstream(fs::path(dir) / "program.py", std::ios::binary) << g->minimised_program;
    files.push_back("program.py");
  }
  if (fs::is_regular_file(fs::path(dir) / "model.onnx") && fs::is_directory(src / "set_0"))
    info["onnxruntime"] =
        run_onnxruntime(dir, (src / "set_0").string(), info["config"], info["versions"], files);
  info["outputs"] = {{"torch", "expected"},
                     {"onnxruntime_unoptimised", "onnxruntime_unoptimised"},
                     {"onnxruntime_optimised", "onnxruntime_optimised"}};
  info["files"] = files;
  std::ofstream(fs::path(dir) / "info.json", std::ios::binary) << info.dump(2) << "\n";
  return info;
}

}  // namespace convfail::campaign
