// The support matrix tables (schema/0023_support_matrix.sql): this file alone runs SQL on them
// (tests/architecture.sh checks it). One matrix per (torch, onnx, ONNX Runtime release,
// generator); one cell per (operator, type, opset), each stored in its own short transaction as
// it is measured, so an interrupted measurement keeps what it measured.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "campaign/outcomes.h"
#include "core/db.h"

namespace convfail::campaign {

// A cell's classes, in the order tables show them.
inline constexpr const char* kWorks = "works";                 // exported, ran, matched
inline constexpr const char* kNotInEager = "not_in_eager";     // torch eager refuses the pair
inline constexpr const char* kExportRaised = "export_raised";  // torch.onnx.export raised
// kInvalidExport (outcomes.h): the checker refuses the exported model, as the campaign's class
inline constexpr const char* kNoKernel = "no_kernel";        // ONNX Runtime has no kernel
inline constexpr const char* kOrtError = "ort_error";        // ONNX Runtime failed otherwise
inline constexpr const char* kWrongResult = "wrong_result";  // ran, outputs differ
inline constexpr const char* kCrashed = "crashed";           // the worker or the runtime died
inline constexpr const char* kCellInvalid = "invalid";       // the harness could not decide
const std::vector<std::string>& support_classes();
// One character per class for the printed matrix: works "+", not in eager ".", ...
std::string support_class_mark(const std::string& cls);

// What a matrix is measured on: the converter, the checker's onnx, the runtime, the generator.
struct SupportVersions {
  std::string torch, onnx, onnxruntime;
  int generator = 0;
};

// One measured cell.
struct SupportCell {
  std::string op, dtype;
  int opset = 0;
  std::string cls;             // support_classes()
  std::string stage, message;  // where and why it stopped ("" for works)
  std::string signature;       // the failure's grouping key, as campaign_models.signature
  double seconds = 0;
};

struct StoredMatrix {
  std::int64_t id = 0;
  SupportVersions versions;
  std::string created_at;
  std::int64_t cells = 0;
};

// The matrix of these versions, else nullopt.
std::optional<std::int64_t> find_support_matrix(Db& db, const SupportVersions& v);
// The matrix of these versions, created (empty) when missing.
std::int64_t support_matrix_for(Db& db, const SupportVersions& v);
// Every stored matrix, oldest first, with its number of cells.
std::vector<StoredMatrix> list_support_matrices(Db& db);
// A matrix's cells, by operator, type and opset.
std::vector<SupportCell> load_support_cells(Db& db, std::int64_t matrix);
// Stores one cell (replacing an earlier measurement of it), in its own transaction.
void store_support_cell(Db& db, std::int64_t matrix, const SupportCell& cell);
// Forgets a matrix's cells (`test support --remeasure`), in one transaction.
void clear_support_cells(Db& db, std::int64_t matrix);

}  // namespace convfail::campaign
