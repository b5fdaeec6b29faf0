// Options that `eval` and `train` share: where the gold labels come from.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "classifier/evaluation.h"
#include "core/db.h"
#include "core/taxonomy.h"

namespace convfail::cli {

struct GoldOptions {
  std::string annotator;  // --gold
  std::string file;       // --gold-file
};

// --gold ANNOTATOR and --gold-file FILE (mutually exclusive) into `*options`.
void add_gold_options(CLI::App* cmd, GoldOptions* options);

// The gold set the options name: the file, or the annotator's manual labels in the database
// `db()` opens (called only then). Throws UsageError naming `command` when neither is given,
// UserError for an annotator without labels.
classifier::GoldSet load_gold(const GoldOptions& options, const std::string& command,
                              const std::function<Db&()>& db, const Taxonomy& taxonomy);

}  // namespace convfail::cli
