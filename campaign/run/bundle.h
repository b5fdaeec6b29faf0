// `convfail test bundle GROUP DIR`: what a maintainer needs to file one failure group: the
// (minimised) model.onnx, the torch program as a short Python file, the inputs (inputs/), torch's
// eager outputs (expected/) and ONNX Runtime's outputs with graph optimisations disabled and all
// (onnxruntime_unoptimised/, onnxruntime_optimised/; the model is run again, sandboxed, on the
// campaign's release), all as TensorProto output_N.pb, and info.json (versions, outcome,
// signature, message, diffs, the ONNX Runtime run, candidate issues, labels).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/db.h"

namespace convfail::campaign {

// Writes the bundle into `dir` (created; must be empty or missing); returns info.json's content.
// Throws UserError for an unknown group or unusable folder.
nlohmann::json write_bundle(Db& db, std::int64_t group, const std::string& dir,
                            const std::string& store_dir);

}  // namespace convfail::campaign
