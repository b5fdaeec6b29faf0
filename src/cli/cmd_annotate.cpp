#include <unistd.h>

#include <iostream>
#include <memory>

#include "classifier/annotation_session.h"
#include "classifier/taxonomy.h"
#include "cli/commands.h"

namespace convfail {

// Runs a session on stdin/stdout: raw single keys on a terminal, one answer per line otherwise.
void run_interactive_session(Context& ctx, const Taxonomy& tax, const OpenedSession& opened,
                             SessionConfig config, bool plain) {
  bool tty = !plain && is_terminal(STDIN_FILENO) && is_terminal(STDOUT_FILENO);
  config.colour = tty;
  std::cerr << (opened.resumed ? "resuming" : "starting") << " session " << opened.session.id
            << " (" << opened.session.mode << ", queue " << opened.session.queue << ", "
            << opened.session.items.size() << " issue(s))\n";
  AnnotationSession session(ctx.db(), tax, opened.session, config);
  SessionSummary s;
  if (tty) {
    RawTerminal raw(STDIN_FILENO);
    RawKeyReader keys(std::cin, std::cout);
    s = session.run(keys, std::cout);
  } else {
    LineKeyReader keys(std::cin);
    s = session.run(keys, std::cout);
  }
  std::cout << "session " << opened.session.id << ": " << s.answered << " answer(s), " << s.skipped
            << " skip(s), " << s.undone << " undo(s); " << s.done_items << " of " << s.total_items
            << " issue(s) done";
  if (!s.finished) std::cout << " (run the same command to resume)";
  std::cout << "\n";
}

void add_annotate_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "annotate",
      "Label issues interactively. Per issue: header, body and comments (paged, the classifier's\n"
      "evidence highlighted), then per dimension the suggestion with its confidence.\n"
      "Keys: Enter/a accept the suggestion, a number picks a label, s skips the issue, u undoes\n"
      "the last answer, n adds a note, m shows more text, ? help, q quits. Every answer is saved\n"
      "at once; running the same command again resumes the queue. On a terminal one key is one\n"
      "decision; with input piped in, one answer per line.");
  struct Args {
    std::string annotator;
    QueueOptions queue;
    bool plain = false;
    int page_lines = 20;
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
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", args->queue.seed, "seed of the sample queue")->capture_default_str();
  cmd->add_option("--repo", args->queue.repo, "only issues of OWNER/NAME");
  cmd->add_option("--min-confidence", args->queue.low_confidence,
                  "low-confidence: issues whose lowest confidence is below this")
      ->capture_default_str();
  cmd->add_option("--page-lines", args->page_lines, "lines of issue text per page")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--plain", args->plain, "line mode without colours even on a terminal");
  cmd->callback([&ctx, args] {
    Taxonomy tax = Taxonomy::load(ctx.data_dir);
    Db& db = ctx.db();
    const QueueOptions& q = args->queue;
    std::string params = "size=" + (q.size ? std::to_string(*q.size) : std::string()) +
                         ";repo=" + q.repo.value_or("");
    if (q.queue == "sample") params += ";seed=" + std::to_string(q.seed);
    if (q.queue == "low-confidence") params += ";below=" + std::to_string(q.low_confidence);
    SessionConfig config;
    config.page_lines = args->page_lines;
    OpenedSession opened =
        open_session(db, tax, args->annotator, "annotate", q.queue, params, config,
                     [&] { return build_annotate_queue(db, args->annotator, q); });
    run_interactive_session(ctx, tax, opened, config, args->plain);
  });
}

}  // namespace convfail
