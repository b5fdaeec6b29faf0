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

std::string csv_field(std::string_view value) {
  bool quote = value.find_first_of(",\"\r\n") != std::string_view::npos ||
               (!value.empty() && (value.front() == ' ' || value.back() == ' '));
  if (!quote) return std::string(value);
  std::string out = "\"";
  for (char c : value) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += csv_field(fields[i]);
  }
  out += '\n';
  return out;
}

}  // namespace convfail
