#include "core/importer.h"

#include <cctype>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/issue_schema.h"
#include "core/issue_store.h"
#include "core/json_util.h"
#include "core/text.h"

namespace convfail {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + ": cannot open file");
  // Read in one piece (a stringstream would copy a large dump twice).
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) throw UserError(path + ": cannot read file");
  std::string text(static_cast<std::size_t>(size), '\0');
  in.seekg(0, std::ios::beg);
  in.read(text.data(), size);
  if (in.gcount() != size) throw UserError(path + ": read error");
  return text;
}

std::int64_t line_at(std::string_view text, std::size_t offset) {
  std::int64_t line = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return line;
}

// One issue object, from either shape, into the store.
void import_object(IssueStore& store, const Json& obj, std::string_view text,
                   const ImportOptions& options, ImportCounts& counts) {
  // The whole object, embedded comments and timeline included, even when it turns out stale.
  validate_issue(obj, options.limits);
  std::optional<std::string> repo = opt_string(obj, "repo");
  if (!repo) repo = repo_from_issue_urls(obj);
  if (!repo) repo = options.default_repo;
  if (!repo) {
    throw UserError(
        "no repository: the object has no \"repo\", \"repository_url\" or \"html_url\" "
        "(pass --repo OWNER/NAME)");
  }
  check_repo_name(*repo);
  std::int64_t id = 0;
  // Without embedded threads the text as received is the raw JSON: no need to re-serialise.
  auto c = obj.find("comments");
  auto t = obj.find("timeline");
  bool embedded = t != obj.end() || (c != obj.end() && c->is_array());
  std::optional<std::string_view> raw;
  if (!embedded) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
      text.remove_suffix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
      text.remove_prefix(1);
    if (text.find('\n') == std::string_view::npos) raw = text;  // pretty-printed: re-serialise
  }
  switch (store.upsert_issue(*repo, obj, &id, raw)) {
    case UpsertResult::kInserted:
      ++counts.inserted;
      break;
    case UpsertResult::kUpdated:
      ++counts.updated;
      break;
    case UpsertResult::kUnchanged:
      ++counts.unchanged;
      break;
    case UpsertResult::kStale:
      ++counts.stale;
      return;  // keep the newer stored thread
  }
  if (is_pull_request(obj)) ++counts.pull_requests;
  if (c != obj.end() && c->is_array() && store.store_comments(id, *c))
    ++counts.comment_sets_changed;
  if (t != obj.end() && !t->is_null() && store.store_timeline(id, *repo, *t))
    ++counts.timelines_changed;
}

void import_text(IssueStore& store, const std::string& path, std::string_view text,
                 const ImportOptions& options, ImportCounts& counts) {
  if (starts_with(text, "\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 BOM
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return;  // an empty file holds no issues
  std::int64_t n = 0;
  auto one = [&](std::int64_t line, std::string_view element) {
    std::string where = terminal_safe(path) + ":" + std::to_string(line) + ": ";
    Json obj;
    try {
      check_json_depth(element);  // nlohmann's dump() recurses: refuse deep nesting first
      check_string_lengths(element, options.limits);  // before the parser copies it
      obj = Json::parse(element);
    } catch (const Json::exception& e) {  // parse_error, out_of_range (a number like 1e999)
      // The message quotes the bytes read last: keep it one short, printable line.
      std::string what = e.what();
      std::size_t pos = what.find("] ");
      if (pos != std::string::npos) what.erase(0, pos + 2);
      throw UserError(where + "malformed JSON: " + terminal_safe(truncate_utf8(what, 200)));
    } catch (const UserError& e) {
      throw UserError(where + e.what());
    }
    try {
      import_object(store, obj, element, options, counts);
    } catch (const UserError& e) {
      throw UserError(where + e.what());
    }
    if (options.progress) options.progress(path, ++n);
  };
  if (text[first] == '[') {
    std::vector<std::pair<std::int64_t, std::string_view>> elements;
    try {
      elements = split_json_array(text);
    } catch (const UserError& e) {
      throw UserError(terminal_safe(path) + ":" + e.what());
    }
    for (auto& [line, element] : elements) one(line, element);
    return;
  }
  // JSONL: one object per non-blank line.
  std::size_t pos = 0;
  std::int64_t line = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    ++line;
    std::string_view row = text.substr(pos, end - pos);
    if (row.find_first_not_of(" \t\r") != std::string_view::npos) one(line, row);
    pos = end + 1;
  }
}

}  // namespace

std::vector<std::pair<std::int64_t, std::string_view>> split_json_array(std::string_view text) {
  std::vector<std::pair<std::int64_t, std::string_view>> out;
  std::size_t i = text.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || text[i] != '[')
    throw UserError(std::to_string(line_at(text, i)) + ": expected a JSON array");
  ++i;
  std::int64_t line = line_at(text, i);
  auto skip_ws = [&] {
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) {
      if (text[i] == '\n') ++line;
      ++i;
    }
  };
  skip_ws();
  if (i < text.size() && text[i] == ']') return out;
  while (true) {
    skip_ws();
    if (i >= text.size()) throw UserError(std::to_string(line) + ": unterminated array");
    std::size_t start = i;
    std::int64_t start_line = line;
    int depth = 0;
    bool in_string = false;
    // Scan one value: track strings (with escapes) and bracket depth.
    for (; i < text.size(); ++i) {
      char ch = text[i];
      if (ch == '\n') ++line;
      if (in_string) {
        if (ch == '\\') {
          ++i;
        } else if (ch == '"') {
          in_string = false;
        }
        continue;
      }
      if (ch == '"') {
        in_string = true;
      } else if (ch == '{' || ch == '[') {
        ++depth;
      } else if (ch == '}' || ch == ']') {
        if (depth == 0) break;  // the closing bracket of the outer array
        --depth;
      } else if (ch == ',' && depth == 0) {
        break;
      }
    }
    if (i >= text.size()) throw UserError(std::to_string(start_line) + ": unterminated array");
    std::string_view element = text.substr(start, i - start);
    while (!element.empty() && (element.back() == ' ' || element.back() == '\n' ||
                                element.back() == '\r' || element.back() == '\t'))
      element.remove_suffix(1);
    if (element.empty()) throw UserError(std::to_string(start_line) + ": empty array element");
    out.emplace_back(start_line, element);
    if (text[i] == ']') {
      ++i;
      skip_ws();
      if (i != text.size()) throw UserError(std::to_string(line) + ": text after the array");
      return out;
    }
    ++i;  // the comma
  }
}

ImportCounts import_files(Db& db, const std::vector<std::string>& paths,
                          const ImportOptions& options) {
  ImportCounts counts;
  // A large transaction spills SQLite's default 2 MiB page cache to the WAL and reads it back;
  // give this import up to 256 MiB of cache (allocated only as used), then restore the setting.
  std::int64_t cache = db.scalar("PRAGMA cache_size");
  db.exec("PRAGMA cache_size=-262144");
  db.exec("PRAGMA temp.cache_size=-262144");  // the bulk staging tables (issue_store.h)
  struct RestoreCache {
    Db& db;
    std::int64_t value;
    ~RestoreCache() {
      sqlite3_exec(db.handle(), ("PRAGMA cache_size=" + std::to_string(value)).c_str(), nullptr,
                   nullptr, nullptr);
    }
  } restore{db, cache};
  Transaction tx(db);
  IssueStore store(db);
  store.set_limits(options.limits);
  store.begin_bulk();
  for (const std::string& path : paths) {
    std::string text = read_file(path);
    import_text(store, path, text, options, counts);
  }
  store.flush();
  tx.commit();
  return counts;
}

}  // namespace convfail
