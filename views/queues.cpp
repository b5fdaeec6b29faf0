#include "views/queues.h"

#include "classifier/run_labels.h"
#include "classifier/uncertain_queue.h"

namespace convfail::views {

std::vector<labeling::QueueItem> annotate_queue(Db& db, const Taxonomy& tax,
                                                const std::string& rules_dir,
                                                const std::string& annotator,
                                                const labeling::QueueOptions& options,
                                                const std::string& measure) {
  if (options.queue != "uncertain") {
    labeling::QueueOptions o = options;
    if (o.queue == "low-confidence" || o.queue == "disagreement")
      o.classifier = classifier::run_labels(db);
    return labeling::build_annotate_queue(db, annotator, o);
  }
  classifier::UncertainQueue queue(db, tax, rules_dir, annotator, 1, measure);
  return queue.initial(options);
}

}  // namespace convfail::views
