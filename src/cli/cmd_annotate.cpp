#include <iostream>
#include <memory>

#include "cli/annotation_session.h"
#include "cli/commands.h"
#include "cli/interactive_session.h"
#include "core/taxonomy.h"

namespace convfail::cli {

void add_annotate_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Label issues interactively. Per issue: header, body and comments (paged, the classifier's\n"
      "evidence highlighted), then per dimension the suggestion with its confidence.\n"
      "Keys: Enter/a accept the suggestion, a number picks a label, s skips the issue, u undoes\n"
      "the last answer, n adds a note, m shows more text, ? help, q quits. Every answer is saved\n"
      "at once; running the same command again resumes the queue. On a terminal one key is one\n"
      "decision; with input piped in, one answer per line.");
  struct Args {
    std::string annotator;
    labeling::QueueOptions queue;
    SessionDisplay display;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--annotator", args->annotator, "who is labeling")->required();
  cmd->add_option("--queue", args->queue.queue,
                  "unlabeled (not yet labeled by you), low-confidence (classifier least sure\n"
                  "first), disagreement (other annotators or the classifier disagree), sample\n"
                  "(random, stratified by repository)")
      ->check(CLI::IsMember({"unlabeled", "low-confidence", "disagreement", "sample"}))
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
    OpenedSession opened =
        open_session(db, tax, args->annotator, "annotate", q.queue, params, config,
                     [&] { return labeling::build_annotate_queue(db, args->annotator, q); });
    run_interactive_session(ctx, tax, opened, config, args->display);
  });
}

}  // namespace convfail::cli
