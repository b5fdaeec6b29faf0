// What `annotate` and `adjudicate` share: their display options and the session loop on
// stdin/stdout (raw single keys on a terminal, one answer per line otherwise).
#pragma once

#include <CLI/CLI.hpp>

#include "cli/annotation_session.h"
#include "cli/context.h"
#include "core/taxonomy.h"

namespace convfail::cli {

struct SessionDisplay {
  int page_lines = 20;
  int width = 0;  // 0: the terminal's width, else $COLUMNS, else no wrapping
  bool plain = false;
};

// --page-lines N, --width N and --plain.
void add_session_display_options(CLI::App* cmd, SessionDisplay* display);

// Runs the opened session with `config` (its page_lines taken from `display`) and prints a summary.
void run_interactive_session(Context& ctx, const Taxonomy& tax, const OpenedSession& opened,
                             SessionConfig config, const SessionDisplay& display);

}  // namespace convfail::cli
