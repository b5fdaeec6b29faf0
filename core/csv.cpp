#include "core/csv.h"

#include "core/error.h"

namespace convfail {

CsvReader::CsvReader(std::istream& in, CsvLimits limits)
    : in_(in), limits_(limits), buf_(std::size_t{1} << 16) {}

int CsvReader::peek() {
  if (pos_ == end_) {
    in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    end_ = static_cast<std::size_t>(in_.gcount());
    pos_ = 0;
    if (end_ == 0) return -1;
  }
  return static_cast<unsigned char>(buf_[pos_]);
}

int CsvReader::get() {
  int c = peek();
  if (c >= 0) ++pos_;
  return c;
}

void CsvReader::add(std::string& field, char c, const CsvRecord& rec) {
  std::size_t column = rec.fields.size() + 1;
  if (field.size() >= limits_.max_field_bytes)
    throw CsvTooLong(rec.line, column,
                     "a field longer than " + std::to_string(limits_.max_field_bytes) + " bytes");
  if (++record_bytes_ > limits_.max_record_bytes)
    throw CsvTooLong(rec.line, column,
                     "a record longer than " + std::to_string(limits_.max_record_bytes) + " bytes");
  field += c;
}

bool CsvReader::next(CsvRecord* out) {
  if (!started_) {  // a UTF-8 BOM at the start of the first read
    started_ = true;
    if (peek() >= 0 &&
        std::string_view(buf_.data() + pos_, end_ - pos_).substr(0, 3) == "\xEF\xBB\xBF")
      pos_ += 3;
  }
  while (peek() >= 0) {
    CsvRecord rec;
    rec.line = line_;
    record_bytes_ = 0;
    bool blank = true;
    while (true) {  // one field per iteration
      std::string field;
      if (peek() == '"') {
        blank = false;
        std::int64_t start_line = line_;
        get();
        while (true) {
          int c = get();
          if (c < 0) throw UserError(std::to_string(start_line) + ": unterminated quoted field");
          if (c == '"') {
            if (peek() != '"') break;
            get();
          } else if (c == '\n') {
            ++line_;
          }
          add(field, static_cast<char>(c), rec);
        }
        int c = peek();
        if (c >= 0 && c != ',' && c != '\n' && c != '\r')
          throw UserError(std::to_string(line_) + ": text after a closing quote");
      } else {
        for (int c = peek(); c >= 0 && c != ',' && c != '\n' && c != '\r'; c = peek()) {
          if (c == '"') throw UserError(std::to_string(line_) + ": quote inside an unquoted field");
          add(field, static_cast<char>(get()), rec);
        }
        if (!field.empty()) blank = false;
      }
      rec.fields.push_back(std::move(field));
      if (peek() == ',') {
        blank = false;
        get();
        continue;
      }
      break;  // end of record (newline or end of text)
    }
    if (peek() == '\r') get();
    if (peek() == '\n') get();
    ++line_;
    if (!blank) {
      *out = std::move(rec);
      return true;
    }
  }
  return false;
}

namespace {

// A read-only stream over text held elsewhere (no copy).
struct ViewBuf : std::streambuf {
  explicit ViewBuf(std::string_view text) {
    char* p = const_cast<char*>(text.data());
    setg(p, p, p + text.size());
  }
};

}  // namespace

std::vector<CsvRecord> parse_csv(std::string_view text) {
  ViewBuf buf(text);
  std::istream in(&buf);
  CsvReader reader(in);
  std::vector<CsvRecord> out;
  CsvRecord rec;
  while (reader.next(&rec)) out.push_back(std::move(rec));
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
