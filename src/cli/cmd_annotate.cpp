#include <iostream>
#include <memory>

#include "classifier/active_learning.h"
#include "classifier/engine.h"
#include "classifier/rules.h"
#include "cli/annotation_session.h"
#include "cli/commands.h"
#include "cli/interactive_session.h"
#include "core/error.h"
#include "core/taxonomy.h"
#include "labeling/label_sets.h"

namespace convfail::cli {

namespace {

// The uncertain queue: the first order from the latest trained model, then refits on the
// annotator's labels in the background every `refit_every` issues.
class UncertainQueue {
 public:
  UncertainQueue(Context& ctx, const Taxonomy& tax, std::string annotator, int refit_every,
                 std::string measure)
      : ctx_(ctx),
        tax_(tax),
        engine_(classifier::load_rules(ctx.data_dir + "/rules", tax), tax),
        annotator_(std::move(annotator)),
        refit_every_(static_cast<std::size_t>(refit_every)),
        measure_(std::move(measure)) {}

  std::vector<labeling::QueueItem> initial(const labeling::QueueOptions& options) {
    std::optional<classifier::TrainedModel> model = classifier::load_latest_model(ctx_.db());
    if (!model)
      throw UserError("--queue uncertain needs a trained model: run `convfail train` first");
    labeling::QueueOptions unlabeled = options;
    unlabeled.queue = "unlabeled";
    unlabeled.size.reset();
    std::vector<labeling::QueueItem> items =
        labeling::build_annotate_queue(ctx_.db(), annotator_, unlabeled);
    std::vector<std::int64_t> ids;
    for (const auto& item : items) ids.push_back(item.issue_id);
    prefetch(ids);
    classifier::UncertaintyScores scores;
    for (std::int64_t id : ids)
      scores[id] = classifier::uncertainty(*model, features(id), measure_);
    std::vector<labeling::QueueItem> out;
    for (std::int64_t id : classifier::order_by_uncertainty(ids, scores)) out.push_back({id, {}});
    if (options.size && out.size() > static_cast<std::size_t>(*options.size))
      out.resize(static_cast<std::size_t>(*options.size));
    return out;
  }

  std::optional<std::vector<std::int64_t>> rerank(std::size_t from,
                                                  const std::vector<labeling::QueueItem>& items) {
    std::optional<std::vector<std::int64_t>> order;
    if (auto scores = refit_.take()) {
      std::vector<std::int64_t> ids;
      for (std::size_t i = from; i < items.size(); ++i) ids.push_back(items[i].issue_id);
      order = classifier::order_by_uncertainty(ids, *scores);
    }
    if (!last_refit_) last_refit_ = from;
    if (from >= *last_refit_ + refit_every_ && from < items.size() && !refit_.running()) {
      last_refit_ = from;
      classifier::BackgroundRefit::Candidates candidates;
      for (std::size_t i = from; i < items.size(); ++i)
        candidates.push_back({items[i].issue_id, features(items[i].issue_id)});
      classifier::FitOptions fit;
      fit.lambdas = {0.003};
      fit.iterations = 300;
      refit_.start(training_data(), std::move(candidates), measure_, fit);
    }
    return order;
  }

 private:
  const std::set<std::string>& features(std::int64_t id) {
    auto it = cache_.find(id);
    if (it == cache_.end()) {
      auto one = classifier::features_by_issue(ctx_.db(), engine_, {id});
      it = cache_.emplace(id, one.count(id) ? one[id] : std::set<std::string>{}).first;
    }
    return it->second;
  }

  void prefetch(const std::vector<std::int64_t>& ids) {
    std::set<std::int64_t> missing;
    for (std::int64_t id : ids)
      if (!cache_.count(id)) missing.insert(id);
    for (auto& [id, f] : classifier::features_by_issue(ctx_.db(), engine_, missing))
      cache_[id] = std::move(f);
  }

  // The annotator's current labels (read now, on this thread) as training examples.
  classifier::TrainingData training_data() {
    classifier::TrainingData data;
    std::vector<labeling::IssueLabels> labels =
        labeling::load_annotator_labels(ctx_.db(), annotator_);
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

  Context& ctx_;
  const Taxonomy& tax_;
  classifier::Engine engine_;
  std::string annotator_;
  std::size_t refit_every_;
  std::string measure_;
  std::map<std::int64_t, std::set<std::string>> cache_;
  std::optional<std::size_t> last_refit_;
  classifier::BackgroundRefit refit_;
};

}  // namespace

void add_annotate_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Label issues interactively. Per issue: header, body and comments (paged, the classifier's\n"
      "evidence highlighted), then per dimension the suggestion with its confidence.\n"
      "Keys: Enter/a accept the suggestion, a number picks a label, s skips the issue, u undoes\n"
      "the last answer, n adds a note, m shows more text, ? shows the keys and the codebook (the\n"
      "definition and an example of every choice, from data/taxonomy.json), q quits. Every\n"
      "answer is saved at once; running the same command again resumes the queue. On a terminal\n"
      "one key is one decision; a first digit that could start a two-digit number (1 for 10-14\n"
      "among the causes) waits, shown as \"1_\" with the labels it could complete: type the "
      "second\n"
      "digit, or Enter for 1. With input piped in, one answer per line. Other raters' labels\n"
      "are never shown here (blind labeling); `adjudicate` shows them.\n"
      "\n"
      "--queue uncertain (active learning) puts first the unlabeled issues the latest trained\n"
      "model (`convfail train`) is least sure of (--uncertainty: margin or entropy of its\n"
      "probabilities, averaged over symptom, cause and stage). After every --refit-every issues\n"
      "you finish, a model is refitted on your labels in a background thread (the session does\n"
      "not wait) and the issues not yet started are re-ranked when it is done; the new order is\n"
      "stored, so a resumed session follows it. `eval --simulate-annotation` shows what this\n"
      "order saves on gold labels.");
  struct Args {
    std::string annotator;
    labeling::QueueOptions queue;
    SessionDisplay display;
    int refit_every = 20;
    std::string uncertainty = "margin";
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--annotator", args->annotator, "who is labeling")->required();
  cmd->add_option("--queue", args->queue.queue,
                  "unlabeled (not yet labeled by you), low-confidence (classifier least sure\n"
                  "first), disagreement (other annotators or the classifier disagree), sample\n"
                  "(random, stratified by repository), uncertain (the trained model least sure\n"
                  "first, re-ranked as you label; see below)")
      ->check(CLI::IsMember({"unlabeled", "low-confidence", "disagreement", "sample", "uncertain"}))
      ->capture_default_str();
  cmd->add_option("--size", args->queue.size, "at most N issues (sample: default 20)")
      ->check(CLI::Range(1, 1 << 30));
  cmd->add_option("--seed", args->queue.seed, "seed of the sample queue")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1} << 53));
  cmd->add_option("--repo", args->queue.repos, "only issues of OWNER/NAME (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--min-confidence", args->queue.low_confidence,
                  "low-confidence: issues whose lowest confidence is below this")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--refit-every", args->refit_every,
                  "uncertain: refit and re-rank after every N issues finished (1-100000)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--uncertainty", args->uncertainty,
                  "uncertain: margin (1 - difference of the top two probabilities) or entropy")
      ->capture_default_str()
      ->check(CLI::IsMember({"margin", "entropy"}));
  add_session_display_options(cmd, &args->display);
  cmd->callback([&ctx, args] {
    Taxonomy tax = Taxonomy::load(ctx.data_dir);
    Db& db = ctx.db();
    const labeling::QueueOptions& q = args->queue;
    std::string repos;
    for (const std::string& r : q.repos) repos += (repos.empty() ? "" : ",") + r;
    std::string params =
        "size=" + (q.size ? std::to_string(*q.size) : std::string()) + ";repo=" + repos;
    if (q.queue == "sample") params += ";seed=" + std::to_string(q.seed);
    if (q.queue == "low-confidence") params += ";below=" + std::to_string(q.low_confidence);
    SessionConfig config;
    if (q.queue != "uncertain") {
      OpenedSession opened =
          open_session(db, tax, args->annotator, "annotate", q.queue, params, config,
                       [&] { return labeling::build_annotate_queue(db, args->annotator, q); });
      run_interactive_session(ctx, tax, opened, config, args->display);
      return;
    }
    params += ";refit=" + std::to_string(args->refit_every) + ";by=" + args->uncertainty;
    UncertainQueue uncertain(ctx, tax, args->annotator, args->refit_every, args->uncertainty);
    OpenedSession opened = open_session(db, tax, args->annotator, "annotate", q.queue, params,
                                        config, [&] { return uncertain.initial(q); });
    config.rerank = [&uncertain](std::size_t from, const std::vector<labeling::QueueItem>& items) {
      return uncertain.rerank(from, items);
    };
    run_interactive_session(ctx, tax, opened, config, args->display);
  });
}

}  // namespace convfail::cli
