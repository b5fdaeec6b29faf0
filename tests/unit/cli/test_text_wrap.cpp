#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli/text_wrap.h"

TEST_CASE("wrap_columns: lines fit the window, words kept, colours closed at a break") {
  using convfail::cli::wrap_columns;
  CHECK(wrap_columns("short line", 0) == std::vector<std::string>{"short line"});
  CHECK(wrap_columns("", 10) == std::vector<std::string>{""});
  CHECK(wrap_columns("alpha beta gamma delta", 11) ==
        std::vector<std::string>{"alpha beta ", "gamma delta"});
  // A word longer than the window is cut inside; no piece starts with a space.
  CHECK(wrap_columns("abcdefghij klm", 4) ==
        std::vector<std::string>{"abcd", "efgh", "ij ", "klm"});
  // UTF-8 characters count one column each, never split.
  CHECK(wrap_columns("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 3) ==
        std::vector<std::string>{"\xC3\xA9\xC3\xA9\xC3\xA9", "\xC3\xA9"});
  // Escape sequences take no column; a colour open at a break is closed and reopened.
  std::vector<std::string> c = wrap_columns("ab \x1b[7;33mcd ef\x1b[0m gh", 5);
  REQUIRE(c.size() == 2);
  CHECK(c[0] == "ab \x1b[7;33mcd\x1b[0m");  // "ab cd" fits exactly: the space after it goes
  CHECK(c[1] == "\x1b[7;33mef\x1b[0m gh");
}
