#include "classifier/uncertain_queue.h"

#include "classifier/rules.h"
#include "core/error.h"
#include "labeling/label_sets.h"

namespace convfail::classifier {

UncertainQueue::UncertainQueue(Db& db, const Taxonomy& tax, const std::string& rules_dir,
                               std::string annotator, int refit_every, std::string measure)
    : db_(db),
      tax_(tax),
      engine_(load_rules(rules_dir, tax), tax),
      annotator_(std::move(annotator)),
      refit_every_(static_cast<std::size_t>(refit_every)),
      measure_(std::move(measure)) {}

std::vector<labeling::QueueItem> UncertainQueue::initial(const labeling::QueueOptions& options) {
  std::optional<TrainedModel> model = load_latest_model(db_);
  if (!model) throw UserError("the uncertain queue needs a trained model: run `convfail train`");
  labeling::QueueOptions unlabeled = options;
  unlabeled.queue = "unlabeled";
  unlabeled.size.reset();
  std::vector<labeling::QueueItem> items =
      labeling::build_annotate_queue(db_, annotator_, unlabeled);
  std::vector<std::int64_t> ids;
  for (const auto& item : items) ids.push_back(item.issue_id);
  prefetch(ids);
  UncertaintyScores scores;
  for (std::int64_t id : ids) scores[id] = uncertainty(*model, features(id), measure_);
  std::vector<labeling::QueueItem> out;
  for (std::int64_t id : order_by_uncertainty(ids, scores)) out.push_back({id, {}});
  if (options.size && out.size() > static_cast<std::size_t>(*options.size))
    out.resize(static_cast<std::size_t>(*options.size));
  return out;
}

std::optional<std::vector<std::int64_t>> UncertainQueue::rerank(
    std::size_t from, const std::vector<labeling::QueueItem>& items) {
  std::optional<std::vector<std::int64_t>> order;
  if (auto scores = refit_.take()) {
    std::vector<std::int64_t> ids;
    for (std::size_t i = from; i < items.size(); ++i) ids.push_back(items[i].issue_id);
    order = order_by_uncertainty(ids, *scores);
  }
  if (!last_refit_) last_refit_ = from;
  if (from >= *last_refit_ + refit_every_ && from < items.size() && !refit_.running()) {
    last_refit_ = from;
    BackgroundRefit::Candidates candidates;
    for (std::size_t i = from; i < items.size(); ++i)
      candidates.push_back({items[i].issue_id, features(items[i].issue_id)});
    FitOptions fit;
    fit.lambdas = {0.003};
    fit.iterations = 300;
    refit_.start(training_data(), std::move(candidates), measure_, fit);
  }
  return order;
}

const std::set<std::string>& UncertainQueue::features(std::int64_t id) {
  auto it = cache_.find(id);
  if (it == cache_.end()) {
    auto one = features_by_issue(db_, engine_, {id});
    it = cache_.emplace(id, one.count(id) ? one[id] : std::set<std::string>{}).first;
  }
  return it->second;
}

void UncertainQueue::prefetch(const std::vector<std::int64_t>& ids) {
  std::set<std::int64_t> missing;
  for (std::int64_t id : ids)
    if (!cache_.count(id)) missing.insert(id);
  for (auto& [id, f] : features_by_issue(db_, engine_, missing)) cache_[id] = std::move(f);
}

TrainingData UncertainQueue::training_data() {
  TrainingData data;
  std::vector<labeling::IssueLabels> labels = labeling::load_annotator_labels(db_, annotator_);
  std::vector<std::int64_t> ids;
  for (const auto& l : labels) ids.push_back(l.issue_id);
  prefetch(ids);
  for (const labeling::IssueLabels& l : labels) {
    data.examples.push_back(features(l.issue_id));
    data.cv_group.push_back(0);
    for (const auto& d : tax_.dimensions()) {
      auto v = l.values.find(d.id);
      data.labels[d.id].push_back(v == l.values.end() ? "" : v->second);
    }
  }
  return data;
}

}  // namespace convfail::classifier
