// The support matrix as people read it (`convfail test support`, the web's /api/support): per
// release and opset the operator x type table, the cells per class, and for every gap (a cell
// that does not work on some release shown) the first release where it works, or "no kernel up
// to 1.31.1". Rendered through reports/ (md, csv, latex, html) or as JSON.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/store/support_store.h"
#include "core/db.h"
#include "reports/render.h"

namespace convfail::campaign {

// One stored matrix with its cells.
struct MatrixView {
  StoredMatrix matrix;
  std::vector<SupportCell> cells;
};

// What to show: releases in release order (repro::version_less), those opsets, types, operators
// (empty: every one present).
struct SupportViewOptions {
  std::vector<int> opsets;
  std::vector<std::string> dtypes, ops;
};

// A gap: a cell that does not work on at least one release shown.
struct SupportGap {
  std::string op, dtype;
  int opset = 0;
  std::vector<std::string> classes;  // per release shown ("" when not measured there)
  std::string summary;               // "no_kernel up to 1.31.1", "works from 1.22.0", ...
  std::string message;               // the last failing release's message, first line, cut
};

// Every stored matrix, oldest release first; `releases` non-empty: only those (by onnxruntime
// version), each must be stored (UserError names the first that is not).
std::vector<MatrixView> load_matrix_views(Db& db, const std::vector<std::string>& releases);

std::vector<SupportGap> support_gaps(const std::vector<MatrixView>& views,
                                     const SupportViewOptions& options);

reports::PrintedReport printed_support(const std::vector<MatrixView>& views,
                                       const SupportViewOptions& options);
nlohmann::json support_json(const std::vector<MatrixView>& views,
                            const SupportViewOptions& options);
std::string render_support(const std::vector<MatrixView>& views, const SupportViewOptions& options,
                           reports::ReportFormat format, bool raw_csv = false);

}  // namespace convfail::campaign
