#include "campaign/run/support_matrix.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

#include "campaign/outcomes.h"
#include "campaign/run/plan.h"
#include "core/error.h"
#include "core/text.h"
#include "repro/fetch.h"

using nlohmann::json;

namespace convfail::campaign {

std::string cell_class(const ModelResult& r) {
  const bool died = r.message.rfind("torch worker ", 0) == 0;
  if (r.outcome == kSuccess) return kWorks;
  if (r.outcome == kMismatch) return kWrongResult;
  // A later outcome class of the checker's refusal, if the store has one, is the same cell.
  if (r.outcome == "invalid_export") return kInvalidExport;
  if (r.outcome == kConversionFailure) {
    if (died) return kCrashed;
    bool checker = r.stage == "parse" || r.stage == "checker" || r.stage == "shape_inference";
    return checker ? kInvalidExport : kExportRaised;
  }
  if (r.outcome == kOrtFailure) {
    if (r.signature.rfind("onnxruntime: no kernel for ", 0) == 0) return kNoKernel;
    for (const char* death : {"signal ", "timeout", "memory exhausted", "runner "})
      if (r.signature.rfind(death, 0) == 0) return kCrashed;
    return kOrtError;
  }
  return kCellInvalid;  // invalid, not_run, ...: the harness could not say
}

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::vector<std::string> type_list(const json& j, const std::string& op, const char* key) {
  if (!j.contains(key) || !j[key].is_array() || j[key].size() > all_dtypes().size())
    throw UserError("the worker's support table: " + op + "." + key + " is not a list of types");
  std::vector<std::string> out;
  for (const auto& t : j[key]) {
    std::string name = t.is_string() ? t.get<std::string>() : "";
    if (std::find(all_dtypes().begin(), all_dtypes().end(), name) == all_dtypes().end())
      throw UserError("the worker's support table: " + op + "." + key +
                      " holds a type that is not one of the nine");
    out.push_back(name);
  }
  return out;
}

}  // namespace

std::vector<SupportOp> parse_support_table(const json& reply, int* generator) {
  if (!reply.is_object() || !reply.value("ok", false) || !reply.contains("ops") ||
      !reply["ops"].is_array())
    throw UserError("the torch worker gave no support table (an older campaign_worker.py?)");
  if (!reply.contains("generator") || !reply["generator"].is_number_integer())
    throw UserError("the worker's support table names no generator");
  *generator = reply["generator"].get<int>();
  if (reply["ops"].size() > 1000)
    throw UserError("the worker's support table: over 1,000 operators");
  std::vector<SupportOp> out;
  std::set<std::string> seen;
  for (const auto& j : reply["ops"]) {
    std::string op = j.is_object() && j.contains("op") && j["op"].is_string()
                         ? j["op"].get<std::string>()
                         : std::string();
    if (!is_identifier(op) || !seen.insert(op).second)
      throw UserError("the worker's support table: an operator name is not a new identifier");
    SupportOp s{op, type_list(j, op, "types"), type_list(j, op, "eager")};
    for (const auto& t : s.eager)
      if (std::find(s.types.begin(), s.types.end(), t) == s.types.end())
        throw UserError("the worker's support table: " + op + " eager type " + t +
                        " is not a measured one");
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<CellTask> missing_cells(const std::vector<SupportOp>& ops,
                                    const std::vector<std::string>& dtypes,
                                    const std::vector<int>& opsets,
                                    const std::vector<SupportCell>& stored) {
  std::set<std::tuple<std::string, std::string, int>> have;
  for (const auto& c : stored) have.insert({c.op, c.dtype, c.opset});
  std::vector<CellTask> out;
  for (int opset : opsets)
    for (const auto& op : ops)
      for (const auto& t : op.types) {
        if (!dtypes.empty() && std::find(dtypes.begin(), dtypes.end(), t) == dtypes.end()) continue;
        if (have.count({op.op, t, opset})) continue;
        bool eager = std::find(op.eager.begin(), op.eager.end(), t) != op.eager.end();
        out.push_back({op.op, t, opset, eager});
      }
  return out;
}

json working_pairs(const std::vector<SupportCell>& cells, int opset,
                   const std::vector<std::string>& dtypes) {
  std::map<std::string, std::vector<std::string>> pairs;
  for (const auto& c : cells) {
    if (c.opset != opset || c.cls != kWorks) continue;
    if (std::find(dtypes.begin(), dtypes.end(), c.dtype) == dtypes.end()) continue;
    pairs[c.op].push_back(c.dtype);
  }
  json out = json::object();
  for (auto& [op, types] : pairs) {
    std::vector<std::string> ordered;
    for (const auto& t : all_dtypes())
      if (std::find(types.begin(), types.end(), t) != types.end()) ordered.push_back(t);
    out[op] = ordered;
  }
  return out;
}

json support_identity(const SupportVersions& v, const json& pairs) {
  return {{"torch", v.torch},
          {"onnx", v.onnx},
          {"onnxruntime", v.onnxruntime},
          {"generator", v.generator},
          {"working_pairs_sha256", repro::sha256_hex(pairs.dump())}};
}

std::map<std::string, long> cells_per_class(const std::vector<SupportCell>& cells) {
  std::map<std::string, long> out;
  for (const auto& c : cells) ++out[c.cls];
  return out;
}

namespace {

OracleOptions matrix_oracle(const OracleOptions& given) {
  OracleOptions o;  // default tolerances, opset per cell
  o.inputs = 1;
  o.dtypes = all_dtypes();
  o.ort_version = given.ort_version;
  o.timeout_seconds = given.timeout_seconds;
  o.memory_mb = given.memory_mb;
  return o;
}

SupportVersions versions_of(const json& v, int generator) {
  auto text = [&](const char* k) {
    return v.contains(k) && v[k].is_string() ? v[k].get<std::string>() : "";
  };
  return {text("torch"), text("onnx"), text("onnxruntime"), generator};
}

std::vector<SupportOp> chosen_ops(const std::vector<SupportOp>& all,
                                  const std::vector<std::string>& names) {
  if (names.empty()) return all;
  std::vector<SupportOp> out;
  for (const auto& n : names) {
    auto it = std::find_if(all.begin(), all.end(), [&](const SupportOp& s) { return s.op == n; });
    if (it == all.end())
      throw UsageError("--ops: the generator has no operator '" + terminal_safe(n) +
                       "' (convfail test support --format csv lists them)");
    out.push_back(*it);
  }
  return out;
}

double total_seconds(const ModelResult& r) {
  double s = 0;
  for (const auto& [k, v] : r.durations.items())
    if (v.is_number()) s += v.get<double>();
  return s;
}

// One cell: its variants in turn until one does not work (that one's class, stage, message and
// signature, its variant said first in the message); works when every variant does.
SupportCell measure_cell(Oracle& oracle, const CellTask& t) {
  SupportCell c{t.op, t.dtype, t.opset, kWorks, "", "", "", 0};
  for (int variant : cell_variants()) {
    ModelTask task;
    task.source = "synthetic";
    task.name = "support:" + t.op + ":" + t.dtype + ":" + std::to_string(variant);
    task.nodes = 1;
    task.single_op = t.op;
    task.single_dtype = t.dtype;
    task.single_variant = variant;
    task.opset = t.opset;
    ModelResult r = oracle.run(task);
    c.seconds += total_seconds(r);
    std::string cls = cell_class(r);
    if (cls == kWorks) continue;
    c.cls = cls;
    c.stage = r.stage;
    c.message = "variant " + std::to_string(variant) + ": " + r.message;
    c.signature = r.signature;
    break;
  }
  return c;
}

}  // namespace

MeasureSummary ensure_support_matrix(Db& db, const MeasureOptions& options, Oracle* probe) {
  auto t0 = std::chrono::steady_clock::now();
  MeasureSummary s;
  OracleOptions oo = matrix_oracle(options.oracle);
  std::vector<std::unique_ptr<Oracle>> oracles;
  if (!probe) {
    oracles.push_back(std::make_unique<Oracle>(oo));
    probe = oracles[0].get();
  }
  json versions = probe->versions();
  int generator = 0;
  s.ops = chosen_ops(parse_support_table(probe->support_table(), &generator), options.ops);
  if (generator != kSyntheticGenerator)
    throw UserError("the worker's synth.py is generator " + std::to_string(generator) +
                    ", convfail expects " + std::to_string(kSyntheticGenerator));
  s.versions = versions_of(versions, generator);
  s.matrix = support_matrix_for(db, s.versions);
  if (options.remeasure) clear_support_cells(db, s.matrix);
  std::vector<SupportCell> stored = load_support_cells(db, s.matrix);
  auto todo = missing_cells(s.ops, options.dtypes, options.opsets, stored);
  s.already = static_cast<int>(stored.size());
  std::vector<const CellTask*> run;
  for (const auto& t : todo) {
    if (t.eager) {
      run.push_back(&t);
      continue;
    }
    store_support_cell(db, s.matrix,
                       {t.op, t.dtype, t.opset, kNotInEager, "eager",
                        "torch 1.13 eager does not take this type (synth.SUPPORT)", "", 0});
    ++s.not_in_eager;
  }
  const int jobs = std::max(1, std::min<int>(options.jobs, static_cast<int>(run.size())));
  while (!run.empty() && static_cast<int>(oracles.size()) < jobs)
    oracles.push_back(std::make_unique<Oracle>(oo));
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::string first_error;
  int done = 0;
  auto last = std::chrono::steady_clock::now();
  auto work = [&](Oracle* oracle) {
    for (;;) {
      std::size_t i = next++;
      if (i >= run.size()) return;
      const CellTask& t = *run[i];
      try {
        SupportCell c = measure_cell(*oracle, t);
        std::lock_guard<std::mutex> lock(mu);
        store_support_cell(db, s.matrix, c);
        ++done;
        auto now = std::chrono::steady_clock::now();
        if (options.progress &&
            (std::chrono::duration<double>(now - last).count() > 5 || done == int(run.size()))) {
          last = now;
          std::fprintf(stderr, "support matrix (onnxruntime %s): %d/%zu cells measured\n",
                       terminal_safe(s.versions.onnxruntime).c_str(), done, run.size());
        }
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mu);
        if (first_error.empty()) first_error = e.what();
        next = run.size();
        return;
      }
    }
  };
  if (options.progress && !run.empty())
    std::fprintf(stderr, "support matrix (onnxruntime %s): measuring %zu cells on %d job(s)\n",
                 terminal_safe(s.versions.onnxruntime).c_str(), run.size(), jobs);
  std::vector<std::thread> threads;
  for (std::size_t j = 1; j < oracles.size(); ++j) threads.emplace_back(work, oracles[j].get());
  if (!oracles.empty()) work(oracles[0].get());
  for (auto& t : threads) t.join();
  if (!first_error.empty()) throw UserError(first_error);
  s.measured = done;
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

}  // namespace convfail::campaign
