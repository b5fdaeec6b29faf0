#include <iostream>
#include <memory>

#include "classifier/uncertain_queue.h"
#include "cli/annotation_session.h"
#include "cli/commands.h"
#include "cli/interactive_session.h"
#include "core/error.h"
#include "core/taxonomy.h"
#include "labeling/annotation_queue.h"
#include "views/queues.h"

namespace convfail::cli {

void add_annotate_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Label issues interactively. Per issue: header, body and comments (paged, the classifier's\n"
      "evidence highlighted), then per dimension the suggestion with its confidence.\n"
      "Keys: Enter/a accept the suggestion, a number picks a label, s skips the issue, u undoes\n"
      "the last answer, n adds a note, m shows more text, ? shows the keys and the codebook (the\n"
      "definition and an example of every choice, from data/taxonomy.json), q quits (Ctrl-C\n"
      "too: the summary, then exit 130). Every answer is saved at once; running the same\n"
      "command again resumes the queue. On a terminal\n"
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
      ->check(CLI::IsMember(labeling::annotate_queue_names()))
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
          open_session(db, tax, args->annotator, "annotate", q.queue, params, config, [&] {
            return views::annotate_queue(db, tax, ctx.data_dir + "/rules", args->annotator, q);
          });
      run_interactive_session(ctx, tax, opened, config, args->display);
      return;
    }
    params += ";refit=" + std::to_string(args->refit_every) + ";by=" + args->uncertainty;
    classifier::UncertainQueue uncertain(db, tax, ctx.data_dir + "/rules", args->annotator,
                                         args->refit_every, args->uncertainty);
    OpenedSession opened = open_session(db, tax, args->annotator, "annotate", q.queue, params,
                                        config, [&] { return uncertain.initial(q); });
    config.rerank = [&uncertain](std::size_t from, const std::vector<labeling::QueueItem>& items) {
      return uncertain.rerank(from, items);
    };
    run_interactive_session(ctx, tax, opened, config, args->display);
  });
}

}  // namespace convfail::cli
