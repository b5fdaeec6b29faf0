#include "cli/interactive_session.h"

#include <unistd.h>

#include <iostream>

namespace convfail::cli {

void add_session_display_options(CLI::App* cmd, SessionDisplay* display) {
  cmd->add_option("--page-lines", display->page_lines, "lines of issue text per page")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--plain", display->plain, "line mode without colours even on a terminal");
}

void run_interactive_session(Context& ctx, const Taxonomy& tax, const OpenedSession& opened,
                             SessionConfig config, const SessionDisplay& display) {
  bool tty = !display.plain && is_terminal(STDIN_FILENO) && is_terminal(STDOUT_FILENO);
  config.colour = tty;
  config.page_lines = display.page_lines;
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

}  // namespace convfail::cli
