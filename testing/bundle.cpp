#include "testing/bundle.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "exec/tensor.h"
#include "repro/model_files.h"
#include "repro/repro_command.h"
#include "repro/reproduce.h"
#include "testing/minimise.h"
#include "testing/plan.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace convfail::testing {
namespace {

json parsed(const std::string& text) {
  json j = json::parse(text.empty() ? "null" : text, nullptr, false);
  return j.is_discarded() ? json() : j;
}

// Runs the bundle's model.onnx on the campaign's first input set in ONNX Runtime (the campaign's
// release when it is installed, else the pinned one) with graph optimisations disabled and all,
// and writes each level's outputs as output_N.pb beside torch's (expected/).
json run_onnxruntime(const std::string& dir, const std::string& set0, const json& config,
                     const json& versions, json& files) {
  OracleOptions o = oracle_options_from_config(config);
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
  repro::ModelVerdict v =
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
  return {
      {"version", v.ort_version},        {"verdict", v.verdict}, {"step", v.step},
      {"signature", v.signature},        {"error", v.error},     {"max_abs_error", v.max_abs_error},
      {"max_rel_error", v.max_rel_error}};
}

}  // namespace

json write_bundle(Db& db, std::int64_t group, const std::string& dir,
                  const std::string& store_dir) {
  auto st = db.prepare(
      "SELECT g.campaign_id, g.outcome, g.signature, g.size, g.original_nodes, g.minimised_nodes, "
      "g.minimised_sha256, g.minimised_program, g.candidates_json, g.labels_json, m.name, "
      "m.model_sha256, m.message, m.mismatch_mode, m.max_abs_diff, m.max_rel_diff, "
      "c.versions_json, c.config_json FROM campaign_groups g JOIN campaigns c ON c.id = "
      "g.campaign_id LEFT JOIN campaign_models m ON m.campaign_id = g.campaign_id AND m.seq = "
      "g.representative_seq WHERE g.id = ?");
  st.bind(1, group);
  if (!st.step()) throw UserError("no group " + std::to_string(group));
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec))
    throw UserError("bundle folder " + dir + " exists and is not empty");
  fs::create_directories(dir, ec);
  if (ec) throw UserError("cannot create " + dir + ": " + ec.message());
  bool minimised = !st.is_null(5);
  std::string sha = minimised ? st.text(6) : st.text(11);
  json info = {{"group", group},
               {"campaign", st.int64(0)},
               {"outcome", st.text(1)},
               {"signature", st.text(2)},
               {"size", st.int64(3)},
               {"model", st.text(10)},
               {"original_nodes", st.opt_int64(4) ? json(*st.opt_int64(4)) : json()},
               {"minimised_nodes", minimised ? json(st.int64(5)) : json()},
               {"message", st.text(12)},
               {"mismatch_mode", st.opt_text(13) ? json(*st.opt_text(13)) : json()},
               {"max_abs_diff", st.is_null(14) ? json() : json(st.real(14))},
               {"max_rel_diff", st.is_null(15) ? json() : json(st.real(15))},
               {"candidates", parsed(st.text(8))},
               {"labels", parsed(st.text(9))},
               {"versions", parsed(st.text(16))},
               {"config", parsed(st.text(17))}};
  json files = json::array();
  fs::path src = sha.empty() ? fs::path() : fs::path(store_dir) / sha;
  if (!sha.empty() && fs::is_directory(src)) {
    // The model with its external data files (a model over 2 GiB keeps its weights there).
    if (fs::is_regular_file(src / "model.onnx"))
      for (const auto& f : repro::copy_model_files((src / "model.onnx").string(), dir))
        files.push_back(f);
    if (fs::is_regular_file(src / "program.py")) {
      fs::copy_file(src / "program.py", fs::path(dir) / "program.py", ec);
      files.push_back("program.py");
    }
    if (fs::is_directory(src / "set_0")) {
      fs::create_directories(fs::path(dir) / "inputs");
      fs::create_directories(fs::path(dir) / "expected");
      for (const auto& e : fs::directory_iterator(src / "set_0")) {
        std::string name = e.path().filename().string();
        fs::path to = fs::path(dir) / (name.rfind("input_", 0) == 0 ? "inputs" : "expected") / name;
        fs::copy_file(e.path(), to, ec);
        files.push_back(to.lexically_relative(dir).string());
      }
    }
  }
  if (!fs::exists(fs::path(dir) / "program.py") && minimised && !st.text(7).empty()) {
    std::ofstream(fs::path(dir) / "program.py", std::ios::binary) << st.text(7);
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

}  // namespace convfail::testing
