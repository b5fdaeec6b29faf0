#include "cli/gold_options.h"

#include "core/error.h"
#include "labeling/label_sets.h"

namespace convfail::cli {

void add_gold_options(CLI::App* cmd, GoldOptions* options) {
  auto* gold =
      cmd->add_option("--gold", options->annotator, "annotator whose manual labels are gold");
  auto* file = cmd->add_option("--gold-file", options->file,
                               "CSV with columns repo, number, symptom, cause, stage (subtype, "
                               "fold optional), e.g. ../shared/datasets/jajal2024/labels.csv")
                   ->check(CLI::ExistingFile);
  gold->excludes(file);
}

classifier::GoldSet load_gold(const GoldOptions& options, const std::string& command,
                              const std::function<Db&()>& db, const Taxonomy& taxonomy) {
  if (options.annotator.empty() && options.file.empty())
    throw UsageError(command + ": give --gold ANNOTATOR or --gold-file FILE");
  if (!options.file.empty()) return classifier::load_gold_file(options.file, taxonomy);
  auto labels = labeling::load_annotator_labels(db(), options.annotator);
  if (labels.empty()) throw UserError("annotator \"" + options.annotator + "\" has no labels");
  return classifier::gold_from_labels(options.annotator, labels);
}

}  // namespace convfail::cli
