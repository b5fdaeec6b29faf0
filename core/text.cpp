#include "core/text.h"

#include <charconv>
#include <cstdio>

namespace convfail {
namespace {

char lower_char(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Reads exactly `n` digits at `*pos`; false (and *pos unchanged) otherwise.
bool read_digits(std::string_view s, std::size_t* pos, int n, int* value) {
  if (*pos + static_cast<std::size_t>(n) > s.size()) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    char c = s[*pos + static_cast<std::size_t>(i)];
    if (!is_digit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *pos += static_cast<std::size_t>(n);
  *value = v;
  return true;
}

bool expect(std::string_view s, std::size_t* pos, char c) {
  if (*pos >= s.size() || s[*pos] != c) return false;
  ++*pos;
  return true;
}

bool leap(std::int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int days_in_month(std::int64_t y, int m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil), so no
// dependence on timegm or the process time zone.
std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void civil_from_days(std::int64_t z, std::int64_t* y, int* m, int* d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  *d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

}  // namespace

std::string trim(std::string_view s, std::string_view chars) {
  std::size_t b = s.find_first_not_of(chars);
  if (b == std::string_view::npos) return "";
  std::size_t e = s.find_last_not_of(chars);
  return std::string(s.substr(b, e - b + 1));
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower_char(c);
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower_char(a[i]) != lower_char(b[i])) return false;
  return true;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string url_encode(std::string_view value) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (char ch : value) {
    unsigned char c = static_cast<unsigned char>(ch);
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.' || c == '~';
    if (unreserved) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::optional<std::int64_t> parse_int64(std::string_view text) {
  std::int64_t value = 0;
  if (text.empty() || text.front() == '+') return std::nullopt;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::int64_t> parse_iso8601(std::string_view s) {
  std::size_t p = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!read_digits(s, &p, 4, &year) || !expect(s, &p, '-') || !read_digits(s, &p, 2, &month) ||
      !expect(s, &p, '-') || !read_digits(s, &p, 2, &day))
    return std::nullopt;
  if (p >= s.size() || (s[p] != 'T' && s[p] != 't' && s[p] != ' ')) return std::nullopt;
  ++p;
  if (!read_digits(s, &p, 2, &hour) || !expect(s, &p, ':') || !read_digits(s, &p, 2, &minute) ||
      !expect(s, &p, ':') || !read_digits(s, &p, 2, &second))
    return std::nullopt;
  if (p < s.size() && (s[p] == '.' || s[p] == ',')) {  // fraction: at least one digit, dropped
    ++p;
    std::size_t start = p;
    while (p < s.size() && is_digit(s[p])) ++p;
    if (p == start) return std::nullopt;
  }
  int offset_s = 0;
  if (p < s.size() && (s[p] == 'Z' || s[p] == 'z')) {
    ++p;
  } else if (p < s.size() && (s[p] == '+' || s[p] == '-')) {
    int sign = s[p] == '-' ? -1 : 1;
    ++p;
    int oh = 0, om = 0;
    if (!read_digits(s, &p, 2, &oh)) return std::nullopt;
    if (p < s.size()) {
      expect(s, &p, ':');  // "+02:00" and "+0200"
      if (!read_digits(s, &p, 2, &om)) return std::nullopt;
    }
    if (oh > 23 || om > 59) return std::nullopt;
    offset_s = sign * (oh * 3600 + om * 60);
  }
  if (p != s.size()) return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
      minute > 59 || second > 60)  // 60: a leap second, folded into the next minute
    return std::nullopt;
  std::int64_t days = days_from_civil(year, month, day);
  return days * 86400 + hour * 3600 + minute * 60 + second - offset_s;
}

std::string format_iso8601(std::int64_t epoch) {
  std::int64_t days = epoch >= 0 ? epoch / 86400 : -((-epoch + 86399) / 86400);
  std::int64_t secs = epoch - days * 86400;
  std::int64_t y;
  int m, d;
  civil_from_days(days, &y, &m, &d);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-%02d-%02dT%02d:%02d:%02dZ", static_cast<long long>(y), m,
                d, static_cast<int>(secs / 3600), static_cast<int>(secs / 60 % 60),
                static_cast<int>(secs % 60));
  return buf;
}

std::optional<std::string> utc_time(std::string_view text) {
  std::optional<std::int64_t> t = parse_iso8601(text);
  // Already canonical (GitHub's own form), a second below 60: the text is what formatting gives.
  if (t && text.size() == 20 && text[10] == 'T' && text[19] == 'Z' && text[17] < '6')
    return std::string(text);
  if (!t && text.size() == 10) t = parse_iso8601(std::string(text) + "T00:00:00Z");
  if (!t) return std::nullopt;
  return format_iso8601(*t);
}

int compare_times(std::string_view a, std::string_view b) {
  std::optional<std::string> ua = utc_time(a), ub = utc_time(b);
  if (ua && ub) return ua->compare(*ub);
  if (ua || ub) return ua ? -1 : 1;
  return a.compare(b);
}

namespace {

// Length of the valid UTF-8 sequence starting at s[i] (0 if invalid), and its code point.
std::size_t utf8_sequence(std::string_view s, std::size_t i, std::uint32_t* cp) {
  auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) {
    *cp = b;
    return 1;
  }
  std::size_t n = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b < 0xE0 ? 2 : 0;
  if (n == 0 || b > 0xF4 || i + n > s.size()) return 0;
  std::uint32_t v = b & (0x7F >> n);
  for (std::size_t k = 1; k < n; ++k) {
    auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    v = (v << 6) | (c & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not valid UTF-8.
  if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10FFFF)) ||
      (v >= 0xD800 && v <= 0xDFFF))
    return 0;
  *cp = v;
  return n;
}

bool is_bidi_control(std::uint32_t cp) {
  return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E ||
         cp == 0x200F || cp == 0x061C;
}

}  // namespace

std::string terminal_safe(std::string_view text, bool keep_newlines, bool escape_backslash) {
  std::string out;
  out.reserve(text.size());
  char buf[16];
  for (std::size_t i = 0; i < text.size();) {
    std::uint32_t cp = 0;
    std::size_t n = utf8_sequence(text, i, &cp);
    if (n == 0) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(text[i]));
      out += buf;
      ++i;
      continue;
    }
    if (cp == '\\' && escape_backslash) {
      out += "\\\\";
    } else if (keep_newlines && (cp == '\n' || cp == '\t')) {
      out += static_cast<char>(cp);
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp < 0x20 || cp == 0x7F) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
      out += buf;
    } else if ((cp >= 0x80 && cp <= 0x9F) || is_bidi_control(cp)) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::size_t utf8_invalid_at(std::string_view text) {
  std::uint32_t cp = 0;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t n = utf8_sequence(text, i, &cp);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string truncate_utf8(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  // Back up to the start of the character the cap falls in (never more than 3 continuation
  // bytes), and cut there only when a valid character straddles the cap: continuation bytes
  // that follow a complete character belong to none, and backing up over them would split it.
  std::size_t start = max_bytes;
  for (int k = 0; k < 3 && start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80;
       ++k)
    --start;
  std::uint32_t cp = 0;
  std::size_t n = start < max_bytes ? utf8_sequence(text, start, &cp) : 0;
  return std::string(text.substr(0, n > 0 && start + n > max_bytes ? start : max_bytes));
}

std::string quoted_excerpt(std::string_view text, std::size_t max_bytes) {
  bool cut = text.size() > max_bytes;
  return "\"" + terminal_safe(truncate_utf8(text, max_bytes)) + (cut ? "...\"" : "\"");
}

std::string count_noun(std::int64_t n, std::string_view singular, std::string_view plural) {
  std::string out = std::to_string(n) + " ";
  if (n == 1) return out.append(singular);
  if (!plural.empty()) return out.append(plural);
  return out.append(singular).append("s");
}

}  // namespace convfail
