// The text helpers of core/text that take outside text: terminal_safe, truncate_utf8,
// utf8_invalid_at, quoted_excerpt. Invariants: terminal_safe's output holds no control byte (LF
// and tab only when kept), no C1 control or bidirectional override, and is valid UTF-8, and it
// changes no valid printable text; truncate_utf8's output is a prefix within the cap that adds
// no invalid byte (valid input gives valid output).
#include "core/text.h"
#include "fuzz_check.h"

using namespace convfail;

namespace {

// U+0080..U+009F or a bidirectional control, as UTF-8 in `s` (which is valid UTF-8).
bool has_invisible_control(std::string_view s) {
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    auto a = static_cast<unsigned char>(s[i]), b = static_cast<unsigned char>(s[i + 1]);
    if (a == 0xC2 && b >= 0x80 && b <= 0x9F) return true;  // C1
    if (a == 0xD8 && b == 0x9C) return true;               // U+061C
    if (a == 0xE2 && i + 2 < s.size()) {
      auto c = static_cast<unsigned char>(s[i + 2]);
      if (b == 0x80 && (c == 0x8E || c == 0x8F || (c >= 0xAA && c <= 0xAE))) return true;
      if (b == 0x81 && c >= 0xA6 && c <= 0xA9) return true;
    }
  }
  return false;
}

void check_terminal_safe(std::string_view text) {
  for (bool keep : {false, true}) {
    for (bool backslash : {true, false}) {
      std::string out = terminal_safe(text, keep, backslash);
      FUZZ_CHECK(!fuzz::has_control_byte(out, keep ? "\n\t" : ""));
      FUZZ_CHECK(utf8_invalid_at(out) == std::string_view::npos);
      FUZZ_CHECK(!has_invisible_control(out));
      // Escaping only grows the text, at most to 6 bytes per input byte ("\u202e" for 3 bytes).
      FUZZ_CHECK(out.size() >= text.size() && out.size() <= 6 * text.size());
      bool plain = utf8_invalid_at(text) == std::string_view::npos &&
                   !fuzz::has_control_byte(text) && !has_invisible_control(text) &&
                   text.find('\\') == std::string_view::npos;
      if (plain) FUZZ_CHECK(out == text);
    }
  }
  // No escaped backslash: idempotent (main's last pass over messages escaped already).
  std::string once = terminal_safe(text, false, false);
  FUZZ_CHECK(terminal_safe(once, false, false) == once);
}

void check_truncate(std::string_view text, std::size_t cap) {
  std::string out = truncate_utf8(text, cap);
  FUZZ_CHECK(out.size() <= cap);
  FUZZ_CHECK(text.substr(0, out.size()) == out);
  // At most 3 bytes dropped before the cap: the cut backs up over one character only.
  FUZZ_CHECK(out.size() + 3 >= std::min(cap, text.size()));
  std::size_t bad_in = utf8_invalid_at(text), bad_out = utf8_invalid_at(out);
  FUZZ_CHECK(bad_out == std::string_view::npos || bad_out == bad_in);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  check_terminal_safe(text);
  for (std::size_t cap : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3},
                          std::size_t{5}, std::size_t{40}, size / 2, size})
    check_truncate(text, cap);
  std::string q = quoted_excerpt(text);
  FUZZ_CHECK(!fuzz::has_control_byte(q) && utf8_invalid_at(q) == std::string_view::npos);
  return 0;
}
