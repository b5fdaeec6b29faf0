// An annotate queue by name (labeling::annotate_queue_names), for the web and the terminal: the
// uncertain queue from classifier/uncertain_queue (its first order; the terminal session adds the
// refits), the others from labeling's build_annotate_queue, given the latest classifier run's
// labels where the queue needs them.
#pragma once

#include <string>
#include <vector>

#include "core/db.h"
#include "core/taxonomy.h"
#include "labeling/annotation_queue.h"

namespace convfail::views {

// `rules_dir`: the rules the uncertain queue's features use; `measure`: margin or entropy.
// Throws UsageError for an unknown queue, UserError for the uncertain queue without a model.
std::vector<labeling::QueueItem> annotate_queue(Db& db, const Taxonomy& tax,
                                                const std::string& rules_dir,
                                                const std::string& annotator,
                                                const labeling::QueueOptions& options,
                                                const std::string& measure = "margin");

}  // namespace convfail::views
