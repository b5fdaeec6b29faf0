#include <doctest/doctest.h>

#include "core/text.h"

using namespace convfail;

TEST_CASE("text: trim, lower, iequals, join, starts_with, ends_with") {
  CHECK(trim("  a b \t\r\n") == "a b");
  CHECK(trim(" \t\n") == "");
  CHECK(trim("") == "");
  CHECK(trim("\n a \n", " \t") == "\n a \n");  // only the given characters
  CHECK(trim("\t a \t", " \t") == "a");
  CHECK(lower("MiXeD Case 123") == "mixed case 123");
  CHECK(lower("\xC3\x89") == "\xC3\x89");  // bytes outside ASCII unchanged
  CHECK(iequals("PyTorch/PyTorch", "pytorch/pytorch"));
  CHECK_FALSE(iequals("pytorch/pytorch", "pytorch/pytorc"));
  CHECK(join({}, ", ") == "");
  CHECK(join({"a"}, ", ") == "a");
  CHECK(join({"a", "", "c"}, ",") == "a,,c");
  CHECK(starts_with("torch.onnx", "torch"));
  CHECK_FALSE(starts_with("to", "torch"));
  CHECK(ends_with("model.onnx", ".onnx"));
  CHECK_FALSE(ends_with("onnx", "model.onnx"));
}

TEST_CASE("text: url_encode keeps unreserved characters only") {
  CHECK(url_encode("module: onnx,a/b") == "module%3A%20onnx%2Ca%2Fb");
  CHECK(url_encode("AZaz09-_.~") == "AZaz09-_.~");
  CHECK(url_encode("\xC3\xA9+%") == "%C3%A9%2B%25");
  CHECK(url_encode("") == "");
}

TEST_CASE("text: parse_iso8601 applies offsets and drops fractions") {
  auto z = parse_iso8601("2024-01-02T01:04:05Z");
  REQUIRE(z);
  CHECK(*z == 1704157445);
  CHECK(parse_iso8601("2024-01-02T03:04:05+02:00") == z);
  CHECK(parse_iso8601("2024-01-02T03:04:05+0200") == z);
  CHECK(parse_iso8601("2024-01-01T23:34:05-01:30") == z);
  CHECK(parse_iso8601("2024-01-02T01:04:05.123456Z") == z);
  CHECK(parse_iso8601("2024-01-02T01:04:05") == z);  // no zone: UTC
  CHECK(parse_iso8601("2024-01-02 01:04:05z") == z);
  CHECK(parse_iso8601("1970-01-01T00:00:00Z") == 0);
  CHECK(parse_iso8601("1969-12-31T23:59:59Z") == -1);
  CHECK(parse_iso8601("2024-02-29T00:00:00Z") == 1709164800);  // leap day
}

TEST_CASE("text: parse_iso8601 rejects what is not a time") {
  for (const char* bad : {"", "2024-01-02", "2024-01-02T01:04", "2024-1-02T01:04:05Z",
                          "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2024-01-32T00:00:00Z",
                          "2024-01-02T24:00:00Z", "2024-01-02T01:04:05Zjunk",
                          "2024-01-02T01:04:05+2", "2024-01-02T01:04:05.Z", "yesterday"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_iso8601(bad));
  }
}

TEST_CASE("text: utc_time keeps canonical times and rewrites the others") {
  CHECK(utc_time("2024-01-02T01:04:05Z") == "2024-01-02T01:04:05Z");
  CHECK(utc_time("2024-01-02T01:04:60Z") == "2024-01-02T01:05:00Z");  // a leap second, folded
  CHECK(utc_time("2024-01-02t01:04:05z") == "2024-01-02T01:04:05Z");
  CHECK(utc_time("2024-01-02 01:04:05Z") == "2024-01-02T01:04:05Z");
  CHECK(utc_time("2024-01-02T03:04:05+02:00") == "2024-01-02T01:04:05Z");
  CHECK(utc_time("2024-01-02") == "2024-01-02T00:00:00Z");
  CHECK_FALSE(utc_time("2023-02-29T00:00:00Z"));
  CHECK_FALSE(utc_time("2024-01-02T01:04:05Y"));
}

TEST_CASE("text: format_iso8601 is UTC and round-trips") {
  CHECK(format_iso8601(0) == "1970-01-01T00:00:00Z");
  CHECK(format_iso8601(1704157445) == "2024-01-02T01:04:05Z");
  CHECK(format_iso8601(-1) == "1969-12-31T23:59:59Z");
  CHECK(format_iso8601(951782400) == "2000-02-29T00:00:00Z");
  for (std::int64_t t = -100000000; t < 4000000000; t += 12345677) {
    CAPTURE(t);
    CHECK(parse_iso8601(format_iso8601(t)) == t);
  }
}

TEST_CASE("text: terminal_safe escapes every control sequence and keeps printable UTF-8") {
  CHECK(terminal_safe("plain text, caf\xc3\xa9 \xe2\x9c\x93") ==
        "plain text, caf\xc3\xa9 \xe2\x9c\x93");
  CHECK(terminal_safe("\x1b[2J\x1b]0;pwned\x07") == "\\x1b[2J\\x1b]0;pwned\\x07");
  CHECK(terminal_safe("a\r\nb\tc") == "a\\r\\nb\\tc");
  CHECK(terminal_safe("a\r\nb\tc", true) == "a\\r\nb\tc");
  CHECK(terminal_safe(std::string("nul\0x", 5)) == "nul\\x00x");
  CHECK(terminal_safe("del\x7f") == "del\\x7f");
  CHECK(terminal_safe("c1 \xc2\x9b"
                      "31m") == "c1 \\u009b31m");  // 8-bit CSI
  CHECK(terminal_safe("rtl \xe2\x80\xae"
                      "gnp.exe") == "rtl \\u202egnp.exe");
  CHECK(terminal_safe("bad \xff\xc3") == "bad \\xff\\xc3");   // invalid and truncated
  CHECK(terminal_safe("\xc0\xaf") == "\\xc0\\xaf");           // overlong '/'
  CHECK(terminal_safe("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // surrogate
  CHECK(terminal_safe("back\\x1b") == "back\\\\x1b");  // a literal escape stays distinguishable
  // Whatever the bytes, the result holds no control byte but the kept newline and tab.
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  for (bool keep : {false, true}) {
    for (unsigned char c : terminal_safe(all, keep)) {
      CAPTURE(int(c));
      CHECK((c >= 0x20 && c != 0x7f ? true : keep && (c == '\n' || c == '\t')));
    }
  }
}

TEST_CASE("text: terminal_safe without backslash escapes is idempotent over escaped text") {
  CHECK(terminal_safe("a\\x1b\x1b", false, false) == "a\\x1b\\x1b");
  for (std::string s : {std::string("\x1b]0;t\x07 \\ \xff"), std::string("ok \xe2\x80\xae")}) {
    std::string once = terminal_safe(s);
    CHECK(terminal_safe(once, false, false) == once);
  }
}

TEST_CASE("text: truncate_utf8 cuts before a character the cap splits, and only then") {
  CHECK(truncate_utf8("a\xe2\x82\xac", 2) == "a");              // the euro sign would be split
  CHECK(truncate_utf8("a\xe2\x82\xac", 4) == "a\xe2\x82\xac");  // fits
  CHECK(truncate_utf8("\xf0\x9f\x98\x80x", 3).empty());
  // Found by tests/fuzz (text): a stray continuation byte right after a complete 4-byte
  // character made the cut back up into that character, leaving "\xf0", invalid UTF-8 that the
  // input did not hold there.
  CHECK(truncate_utf8("\xf0\x9f\xb8\x80\x90\xe2\x82\x82", 4) == "\xf0\x9f\xb8\x80");
  CHECK(truncate_utf8("ab\x80\x80\x80\x80", 4) == "ab\x80\x80");  // stray bytes: cut at the cap
}
