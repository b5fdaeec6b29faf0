#include "core/csv.h"

#include "core/error.h"

namespace convfail {

std::vector<CsvRecord> parse_csv(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<CsvRecord> out;
  std::size_t i = 0, n = text.size();
  std::int64_t line = 1;
  while (i < n) {
    CsvRecord rec;
    rec.line = line;
    bool blank = true;
    while (true) {  // one field per iteration
      std::string field;
      if (i < n && text[i] == '"') {
        blank = false;
        std::int64_t start_line = line;
        ++i;
        while (true) {
          if (i >= n) throw UserError(std::to_string(start_line) + ": unterminated quoted field");
          char c = text[i++];
          if (c == '"') {
            if (i < n && text[i] == '"') {
              field += '"';
              ++i;
            } else {
              break;
            }
          } else {
            if (c == '\n') ++line;
            field += c;
          }
        }
        if (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
          throw UserError(std::to_string(line) + ": text after a closing quote");
      } else {
        while (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          if (text[i] == '"')
            throw UserError(std::to_string(line) + ": quote inside an unquoted field");
          field += text[i++];
        }
        if (!field.empty()) blank = false;
      }
      rec.fields.push_back(std::move(field));
      if (i < n && text[i] == ',') {
        blank = false;
        ++i;
        continue;
      }
      break;  // end of record (newline or end of text)
    }
    if (i < n && text[i] == '\r') ++i;
    if (i < n && text[i] == '\n') ++i;
    ++line;
    if (!blank) out.push_back(std::move(rec));
  }
  return out;
}

namespace {

bool formula_start(char c) {
  return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
}

// [+-]digits[.digits][e[+-]digits] or [+-].digits...: a plain decimal number.
bool is_decimal_number(std::string_view v) {
  std::size_t i = 0, n = v.size();
  if (i < n && (v[i] == '+' || v[i] == '-')) ++i;
  std::size_t digits = 0;
  while (i < n && v[i] >= '0' && v[i] <= '9') ++i, ++digits;
  if (i < n && v[i] == '.') {
    ++i;
    while (i < n && v[i] >= '0' && v[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < n && (v[i] == 'e' || v[i] == 'E')) {
    ++i;
    if (i < n && (v[i] == '+' || v[i] == '-')) ++i;
    std::size_t exp = 0;
    while (i < n && v[i] >= '0' && v[i] <= '9') ++i, ++exp;
    if (exp == 0) return false;
  }
  return i == n;
}

bool needs_prefix(std::string_view v) {
  std::size_t quotes = v.find_first_not_of('\'');
  if (quotes == std::string_view::npos) return false;
  std::string_view rest = v.substr(quotes);
  return formula_start(rest.front()) && (quotes > 0 || !is_decimal_number(rest));
}

}  // namespace

std::string csv_neutralise(std::string_view value) {
  return needs_prefix(value) ? "'" + std::string(value) : std::string(value);
}

std::string csv_unneutralise(std::string_view value) {
  if (!value.empty() && value.front() == '\'' && needs_prefix(value.substr(1)))
    value.remove_prefix(1);
  return std::string(value);
}

std::string csv_field(std::string_view value, bool raw) {
  std::string safe = raw ? std::string(value) : csv_neutralise(value);
  bool quote = safe.find_first_of(",\"\r\n") != std::string::npos ||
               (!safe.empty() && (safe.front() == ' ' || safe.back() == ' '));
  if (!quote) return safe;
  std::string out = "\"";
  for (char c : safe) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string csv_line(const std::vector<std::string>& fields, bool raw) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += csv_field(fields[i], raw);
  }
  out += '\n';
  return out;
}

}  // namespace convfail
