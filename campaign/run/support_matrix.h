// The measured support matrix (#48): for every operator of the synthetic generator, each of
// NNSmith's nine types and each opset, a one-operator model through the campaign's own oracle
// (eager, torch.onnx.export, the ONNX checker, ONNX Runtime optimised and not, the comparison);
// each cell records where it stopped. Stored per (torch, onnx, ONNX Runtime release, generator)
// by campaign/store/support_store and reused; a filtered campaign draws only the pairs that work.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/run/oracle.h"
#include "campaign/store/support_store.h"
#include "core/db.h"

namespace convfail::campaign {

// Where a one-operator model's oracle run stopped.
std::string cell_class(const ModelResult& r);

// synth.single's variants a cell runs, in turn, until one does not work: its first input of rank
// 4, 3 and 2 (torch.onnx exports some operators otherwise by rank: linear on a 2-D input is a
// Gemm, on more dimensions a MatMul and an Add).
inline const std::vector<int>& cell_variants() {
  static const std::vector<int> k = {0, 2, 4};
  return k;
}

// One operator of the worker's support_table: the types measured and those eager takes.
struct SupportOp {
  std::string op;
  std::vector<std::string> types, eager;
};
// The worker's reply, validated (operator names identifiers, types of the nine, eager a subset
// of types, at most 1,000 operators); UserError naming what is wrong. *generator: its GENERATOR.
std::vector<SupportOp> parse_support_table(const nlohmann::json& reply, int* generator);

// The cells a matrix lacks for these operators, types and opsets (`stored` what it holds).
struct CellTask {
  std::string op, dtype;
  int opset = 0;
  bool eager = true;  // false: stored as not_in_eager without running
};
std::vector<CellTask> missing_cells(const std::vector<SupportOp>& ops,
                                    const std::vector<std::string>& dtypes,
                                    const std::vector<int>& opsets,
                                    const std::vector<SupportCell>& stored);

// What a filtered draw may use: operator -> the types among `dtypes` whose cell at `opset` works.
nlohmann::json working_pairs(const std::vector<SupportCell>& cells, int opset,
                             const std::vector<std::string>& dtypes);
// The matrix as a campaign's configuration names it: its versions and the sha256 of the pairs.
nlohmann::json support_identity(const SupportVersions& v, const nlohmann::json& pairs);

struct MeasureOptions {
  std::vector<int> opsets = {16, 17};
  std::vector<std::string> dtypes;  // empty: all nine
  std::vector<std::string> ops;     // empty: every operator of the generator
  int jobs = 1;
  bool remeasure = false;  // forget the stored cells of these versions first
  bool progress = false;   // a line on stderr every few seconds
  // The runtime release, timeout and memory; the matrix itself runs 1 input set at the default
  // tolerances, whatever a campaign's are, so one matrix serves every campaign.
  OracleOptions oracle;
};

struct MeasureSummary {
  std::int64_t matrix = 0;
  SupportVersions versions;
  int measured = 0, not_in_eager = 0, already = 0;
  double seconds = 0;
  std::vector<SupportOp> ops;  // the operators measured (after --ops)
};

// Measures the cells the matrix of the current versions lacks (all of them with `remeasure`),
// storing each as it finishes. UsageError for an operator the generator does not know. `probe`:
// a started oracle (a campaign's) asked for the versions and the operators, so that nothing
// more starts when no cell is missing; the cells run on oracles of their own (1 input set, the
// default tolerances).
MeasureSummary ensure_support_matrix(Db& db, const MeasureOptions& options,
                                     Oracle* probe = nullptr);

// Cells per class of a matrix's cells ("works" -> 412, ...), every class present.
std::map<std::string, long> cells_per_class(const std::vector<SupportCell>& cells);

}  // namespace convfail::campaign
