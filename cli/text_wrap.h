// Wrapping a line of terminal text to a window's width (the annotation session's pages).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace convfail::cli {

// Splits one line (no newline in it) into pieces of at most `columns` columns, breaking after
// the last space that fits, else inside the word (spaces at a break are dropped). Each UTF-8
// character counts one column, an ANSI escape sequence ("\x1b[...m") none; a colour in force at a
// break is closed at the end of the piece and opened again at the start of the next, so no
// indentation or margin is coloured. `columns` 0: the line unchanged. An empty line gives one empty
// piece.
std::vector<std::string> wrap_columns(std::string_view line, std::size_t columns);

// The width of the terminal on `fd` (TIOCGWINSZ), else $COLUMNS when it is a positive number,
// else 0 (unknown: do not wrap).
std::size_t terminal_columns(int fd);

}  // namespace convfail::cli
