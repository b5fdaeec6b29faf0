#include "cli/interactive_session.h"

#include <unistd.h>

#include <csignal>
#include <iostream>
#include <sstream>

#include "cli/text_wrap.h"
#include "core/interrupt.h"
#include "core/text.h"

namespace convfail::cli {

void add_session_display_options(CLI::App* cmd, SessionDisplay* display) {
  cmd->add_option("--page-lines", display->page_lines, "lines of issue text per page")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--width", display->width,
                  "wrap lines to N columns (default: the terminal window's width, else "
                  "$COLUMNS, else no wrapping)")
      ->check(CLI::Range(20, 10000));
  cmd->add_flag("--plain", display->plain, "line mode without colours even on a terminal");
}

void run_interactive_session(Context& ctx, const Taxonomy& tax, const OpenedSession& opened,
                             SessionConfig config, const SessionDisplay& display) {
  bool tty = !display.plain && is_terminal(STDIN_FILENO) && is_terminal(STDOUT_FILENO);
  config.colour = tty;
  config.page_lines = display.page_lines;
  config.width =
      display.width > 0 ? static_cast<std::size_t>(display.width) : terminal_columns(STDOUT_FILENO);
  std::cerr << (opened.resumed ? "resuming" : "starting") << " session " << opened.session.id
            << " (" << opened.session.mode << ", queue " << opened.session.queue << ", "
            << opened.session.items.size() << " issue(s))\n";
  AnnotationSession session(ctx.db(), tax, opened.session, config);
  SessionSummary s;
  // Ctrl-C (and SIGTERM, SIGHUP without a raw terminal) stops the session as `q` does: the
  // handler only sets core's flag, the key readers then return end of input; exit 128+N. A
  // signal ignored when convfail started (a script's background job) stays ignored.
  catch_interrupts();
  if (tty) {
    RawTerminal raw(STDIN_FILENO);
    RawKeyReader keys(std::cin, std::cout);
    s = session.run(keys, std::cout);
  } else {
    LineKeyReader keys(std::cin);
    s = session.run(keys, std::cout);
  }
  std::ostringstream summary;
  summary << "session " << opened.session.id << ": " << s.answered << " answer(s), " << s.skipped
          << " skip(s), " << s.undone << " undo(s); " << s.done_items << " of " << s.total_items
          << " issue(s) done";
  if (!s.finished) summary << " (run the same command to resume)";
  for (const std::string& line : wrap_columns(summary.str(), config.width))
    std::cout << line << "\n";
  if (int sig = interrupt_signal())
    throw Interrupted(sig, (sig == SIGINT ? "interrupted" : "stopped by " + interrupt_name(sig)) +
                               ": " + count_noun(s.answered, "answer") + " of this run saved, " +
                               std::to_string(s.done_items) + " of " +
                               std::to_string(s.total_items) +
                               " issue(s) done; run the same command to resume");
}

}  // namespace convfail::cli
