// The uncertain annotation queue (active learning, beside active_learning's ranking): the
// annotator's unlabeled issues most uncertain first by the latest trained model, then, in a
// terminal session, re-ranked from refits on the annotator's labels in a background thread. The
// terminal (`annotate --queue uncertain`) walks it with refits; the web (`/api/queue?queue=
// uncertain`) takes the first order.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "classifier/active_learning.h"
#include "classifier/engine.h"
#include "core/db.h"
#include "core/taxonomy.h"
#include "labeling/annotation_queue.h"

namespace convfail::classifier {

class UncertainQueue {
 public:
  // `rules_dir`: the rules the features are computed with (data/rules); `measure`: margin or
  // entropy (see uncertainty); refits after every `refit_every` issues finished.
  UncertainQueue(Db& db, const Taxonomy& tax, const std::string& rules_dir, std::string annotator,
                 int refit_every, std::string measure);

  // The first order: the unlabeled queue of `options` (repositories; size applies after the
  // ranking) ranked by the latest trained model. Throws UserError when there is no model.
  std::vector<labeling::QueueItem> initial(const labeling::QueueOptions& options);

  // Called before item `from` is shown: the new order of the items from `from` on when a refit
  // finished since the last call; starts a refit every `refit_every` items.
  std::optional<std::vector<std::int64_t>> rerank(std::size_t from,
                                                  const std::vector<labeling::QueueItem>& items);

 private:
  const std::set<std::string>& features(std::int64_t id);
  void prefetch(const std::vector<std::int64_t>& ids);
  TrainingData training_data();  // the annotator's current labels, read on this thread

  Db& db_;
  const Taxonomy& tax_;
  Engine engine_;
  std::string annotator_;
  std::size_t refit_every_;
  std::string measure_;
  std::map<std::int64_t, std::set<std::string>> cache_;
  std::optional<std::size_t> last_refit_;
  BackgroundRefit refit_;
};

}  // namespace convfail::classifier
