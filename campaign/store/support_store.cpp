#include "campaign/store/support_store.h"

#include <map>

namespace convfail::campaign {

const std::vector<std::string>& support_classes() {
  static const std::vector<std::string> k = {kWorks,         kNotInEager, kExportRaised,
                                             kInvalidExport, kNoKernel,   kOrtError,
                                             kWrongResult,   kCrashed,    kCellInvalid};
  return k;
}

std::string support_class_mark(const std::string& cls) {
  static const std::map<std::string, std::string> marks = {
      {kWorks, "+"},         {kNotInEager, "."}, {kExportRaised, "E"},
      {kInvalidExport, "X"}, {kNoKernel, "K"},   {kOrtError, "O"},
      {kWrongResult, "W"},   {kCrashed, "C"},    {kCellInvalid, "?"}};
  auto it = marks.find(cls);
  return it == marks.end() ? "?" : it->second;
}

std::optional<std::int64_t> find_support_matrix(Db& db, const SupportVersions& v) {
  for (const StoredMatrix& m : list_support_matrices(db))
    if (m.versions.torch == v.torch && m.versions.onnx == v.onnx &&
        m.versions.onnxruntime == v.onnxruntime && m.versions.generator == v.generator)
      return m.id;
  return std::nullopt;
}

std::int64_t support_matrix_for(Db& db, const SupportVersions& v) {
  Transaction tx(db);
  if (auto id = find_support_matrix(db, v)) return *id;
  auto st = db.prepare(
      "INSERT INTO support_matrices (torch, onnx, onnxruntime, generator, created_at) "
      "VALUES (?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))");
  st.bind(1, v.torch).bind(2, v.onnx).bind(3, v.onnxruntime).bind(4, v.generator);
  st.run();
  std::int64_t id = db.last_insert_id();
  tx.commit();
  return id;
}

std::vector<StoredMatrix> list_support_matrices(Db& db) {
  // One reader per table (tests/architecture.sh): the cells are counted from their reader.
  auto st = db.prepare(
      "SELECT id, torch, onnx, onnxruntime, generator, created_at FROM support_matrices "
      "ORDER BY id");
  std::vector<StoredMatrix> out;
  while (st.step()) {
    StoredMatrix m;
    m.id = st.int64(0);
    m.versions = {st.text(1), st.text(2), st.text(3), static_cast<int>(st.int64(4))};
    m.created_at = st.text(5);
    out.push_back(m);
  }
  for (StoredMatrix& m : out)
    m.cells = static_cast<std::int64_t>(load_support_cells(db, m.id).size());
  return out;
}

std::vector<SupportCell> load_support_cells(Db& db, std::int64_t matrix) {
  auto st = db.prepare(
      "SELECT op, dtype, opset, class, stage, message, seconds, signature FROM support_cells "
      "WHERE matrix_id = ? ORDER BY op, dtype, opset");
  st.bind(1, matrix);
  std::vector<SupportCell> out;
  while (st.step()) {
    SupportCell c;
    c.op = st.text(0);
    c.dtype = st.text(1);
    c.opset = static_cast<int>(st.int64(2));
    c.cls = st.text(3);
    c.stage = st.text(4);
    c.message = st.text(5);
    c.seconds = st.is_null(6) ? 0 : st.real(6);
    c.signature = st.text(7);
    out.push_back(c);
  }
  return out;
}

void store_support_cell(Db& db, std::int64_t matrix, const SupportCell& c) {
  Transaction tx(db);
  auto st = db.prepare(
      "INSERT OR REPLACE INTO support_cells (matrix_id, op, dtype, opset, class, stage, message, "
      "seconds, signature, measured_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
      "strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))");
  st.bind(1, matrix).bind(2, c.op).bind(3, c.dtype).bind(4, c.opset).bind(5, c.cls);
  st.bind(6, c.stage.empty() ? std::optional<std::string>() : std::optional<std::string>(c.stage));
  st.bind(7,
          c.message.empty() ? std::optional<std::string>() : std::optional<std::string>(c.message));
  st.bind(8, c.seconds);
  st.bind(9, c.signature.empty() ? std::optional<std::string>()
                                 : std::optional<std::string>(c.signature));
  st.run();
  tx.commit();
}

void clear_support_cells(Db& db, std::int64_t matrix) {
  Transaction tx(db);
  auto st = db.prepare("DELETE FROM support_cells WHERE matrix_id = ?");
  st.bind(1, matrix);
  st.run();
  tx.commit();
}

}  // namespace convfail::campaign
