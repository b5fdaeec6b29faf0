#include "core/importer.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.h"
#include "core/issue_record.h"
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

// The repository of an object: "repo", else its URLs, else --repo.
std::string repo_of(const Json& obj, const ImportOptions& options) {
  std::optional<std::string> repo = opt_string(obj, "repo");
  if (!repo) repo = repo_from_issue_urls(obj);
  if (!repo) repo = options.default_repo;
  if (!repo) {
    throw UserError(
        "no repository: the object has no \"repo\", \"repository_url\" or \"html_url\" "
        "(pass --repo OWNER/NAME)");
  }
  check_repo_name(*repo);
  return *repo;
}

// Without embedded threads the text as received is the raw JSON: no need to re-serialise.
std::optional<std::string_view> raw_text_of(const Json& obj, std::string_view text) {
  auto c = obj.find("comments");
  bool embedded = obj.contains("timeline") || (c != obj.end() && c->is_array());
  if (embedded) return std::nullopt;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  if (text.find('\n') != std::string_view::npos) return std::nullopt;  // pretty-printed
  return text;
}

// One checked record into the store: the issue, then its embedded thread unless it is stale.
void write_record(IssueStore& store, const IssueRecord& r, ImportCounts& counts) {
  std::int64_t id = 0;
  switch (store.write_issue(r, &id)) {
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
  if (r.is_pull_request) ++counts.pull_requests;
  if (r.comments && store.write_comments(id, *r.comments)) ++counts.comment_sets_changed;
  if (r.timeline && store.write_timeline(id, *r.timeline, r.has_fix_link))
    ++counts.timelines_changed;
}

// The issue objects of a file's text: (1-based line, text), from a JSON array or JSONL.
std::vector<std::pair<std::int64_t, std::string_view>> elements_of(const std::string& path,
                                                                   std::string_view text) {
  if (starts_with(text, "\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 BOM
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};  // an empty file holds no issues
  if (text[first] == '[') {
    try {
      return split_json_array(text);
    } catch (const UserError& e) {
      throw UserError(terminal_safe(path) + ":" + e.what());
    }
  }
  // JSONL: one object per non-blank line.
  std::vector<std::pair<std::int64_t, std::string_view>> out;
  std::size_t pos = 0;
  std::int64_t line = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    ++line;
    std::string_view row = text.substr(pos, end - pos);
    if (row.find_first_not_of(" \t\r") != std::string_view::npos) out.emplace_back(line, row);
    pos = end + 1;
  }
  return out;
}

// "FILE:LINE: " for errors.
std::string where_of(const std::string& path, std::int64_t line) {
  return terminal_safe(path) + ":" + std::to_string(line) + ": ";
}

// Parses one element, refusing deep nesting and over-long strings before the parser runs.
Json parse_element(const std::string& path, std::int64_t line, std::string_view element,
                   const ImportOptions& options) {
  auto where = [&] { return where_of(path, line); };  // only for an error
  // JSON text holds no NUL byte (in a string it is \u0000), and nlohmann's parser would take one
  // for the end of the text: what follows it would pass unparsed into raw_json.
  if (std::size_t nul = element.find('\0'); nul != std::string_view::npos)
    throw UserError(where() + "malformed JSON: a NUL byte at offset " + std::to_string(nul));
  try {
    check_json_depth(element);  // nlohmann's dump() recurses: refuse deep nesting first
    check_string_lengths(element, options.limits);  // before the parser copies it
    return Json::parse(element);
  } catch (const Json::exception& e) {  // parse_error, out_of_range (a number like 1e999)
    // The message quotes the bytes read last: keep it one short, printable line.
    std::string what = e.what();
    std::size_t pos = what.find("] ");
    if (pos != std::string::npos) what.erase(0, pos + 2);
    throw UserError(where() + "malformed JSON: " + terminal_safe(truncate_utf8(what, 200)));
  } catch (const UserError& e) {
    throw UserError(where() + e.what());
  }
}

// What to say after "malformed JSON" when the file is a CSV (`import labels.csv`): the command
// that reads a CSV of labels. "" for anything else.
std::string csv_hint(const std::string& path, std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] == '{' || text[first] == '[') return "";
  const std::string_view head =
      text.substr(first, std::min<std::size_t>(text.find('\n', first) - first, 200));
  const bool csv_name = path.size() >= 4 && lower(path.substr(path.size() - 4)) == ".csv";
  const bool csv_head =
      head.find(',') != std::string_view::npos && head.find("number") != std::string_view::npos;
  if (!csv_name && !csv_head) return "";
  return " (this looks like a CSV file: import reads issues as JSON or JSONL; a CSV of labels is "
         "read by `convfail labels import FILE`)";
}

// Parses, checks and converts one element: what the store will write of it.
IssueRecord record_of(const std::string& path, std::int64_t line, std::string_view element,
                      const ImportOptions& options) {
  Json obj = parse_element(path, line, element, options);
  try {
    // The whole object first, then its repository.
    return issue_record(obj, raw_text_of(obj, element), options.limits,
                        [&](const Json& o) { return repo_of(o, options); });
  } catch (const UserError& e) {
    throw UserError(where_of(path, line) + e.what());
  }
}

// A checked object waiting for its slice: the record, and where it came from (for errors and
// progress).
struct Checked {
  IssueRecord record;
  std::size_t file = 0;  // index in the paths
  std::int64_t line = 0;
};

// Where the objects the first pass did not keep begin: file index, element index in the file.
struct Resume {
  std::size_t file = 0, element = 0;
};

// The first pass: every object of every file parsed, checked and converted as the store will
// write it; nothing is written. The records are kept while they fit in `kept_bytes`; *resume
// is then where the objects not kept begin ({paths.size(), 0} when all are kept).
std::deque<Checked> check_files(const std::vector<std::string>& paths, const ImportOptions& options,
                                std::size_t kept_bytes, Resume* resume) {
  std::deque<Checked> kept;
  std::size_t bytes = 0;
  *resume = {paths.size(), 0};
  for (std::size_t f = 0; f < paths.size(); ++f) {
    std::string text = read_file(paths[f]);
    auto elements = elements_of(paths[f], text);
    for (std::size_t i = 0; i < elements.size(); ++i) {
      auto [line, element] = elements[i];
      IssueRecord record;
      try {
        record = record_of(paths[f], line, element, options);
      } catch (const UserError& e) {
        const std::string what = e.what();
        if (what.find("malformed JSON") == std::string::npos) throw;
        throw UserError(what + csv_hint(paths[f], text));
      }
      if (resume->file < paths.size()) continue;  // past the bound: checked only
      bytes += record.bytes();
      if (bytes > kept_bytes) {
        *resume = {f, i};
        continue;
      }
      kept.push_back({std::move(record), f, line});
    }
  }
  return kept;
}

// The WAL checkpoints of an import (kImportCheckpointBytes): while it lives, a WAL hook counts the
// WAL's pages after each commit instead of SQLite's automatic checkpoint, restored at the end.
class Checkpoints {
 public:
  explicit Checkpoints(Db& db)
      : db_(db),
        autocheckpoint_(static_cast<int>(db.scalar("PRAGMA wal_autocheckpoint"))),
        page_size_(static_cast<std::size_t>(db.scalar("PRAGMA page_size"))) {
    sqlite3_wal_hook(db_.handle(), &Checkpoints::on_commit, this);
  }
  ~Checkpoints() { sqlite3_wal_autocheckpoint(db_.handle(), autocheckpoint_); }
  Checkpoints(const Checkpoints&) = delete;
  Checkpoints& operator=(const Checkpoints&) = delete;

  // Between slices: a checkpoint once the WAL has grown by kImportCheckpointBytes.
  void maybe() {
    if (static_cast<std::size_t>(pages_ - backfilled_) * page_size_ >= kImportCheckpointBytes)
      now();
  }
  // A passive checkpoint (SQLITE_BUSY, another checkpoint running, is no error: it copies too).
  void now() {
    int log = 0, copied = 0;
    int rc =
        sqlite3_wal_checkpoint_v2(db_.handle(), "main", SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
    if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_BUSY) db_.fail("checkpoint");
    backfilled_ = copied > 0 ? copied : 0;
  }

 private:
  static int on_commit(void* self, sqlite3*, const char*, int pages) {
    auto* c = static_cast<Checkpoints*>(self);
    if (pages < c->backfilled_) c->backfilled_ = 0;  // the WAL started again from its beginning
    c->pages_ = pages;
    return SQLITE_OK;
  }

  Db& db_;
  int autocheckpoint_;
  std::size_t page_size_;
  int pages_ = 0, backfilled_ = 0;  // WAL pages after the last commit; of them, checkpointed
};

// The second pass: the records written a slice at a time, each slice one transaction.
class SliceWriter {
 public:
  SliceWriter(Db& db, IssueStore& store, const std::vector<std::string>& paths,
              const ImportOptions& options, ImportCounts& counts, Checkpoints& checkpoints)
      : db_(db),
        store_(store),
        paths_(paths),
        options_(options),
        counts_(counts),
        checkpoints_(checkpoints) {}

  void add(Checked&& checked) {
    pending_.push_back(std::move(checked));
    if (pending_.size() >= slice_) write();
  }

  void write() {
    if (pending_.empty()) return;
    auto begun = std::chrono::steady_clock::now();
    Transaction tx(db_);
    for (const Checked& c : pending_) {
      try {
        write_record(store_, c.record, counts_);
      } catch (const UserError& e) {
        throw UserError(where_of(paths_[c.file], c.line) + e.what());
      }
      if (options_.progress) options_.progress(paths_[c.file], ++in_file_[c.file]);
    }
    store_.flush();
    tx.commit();
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count();
    // At once, before anything else: a writer that waited for this slice (a label post of serve)
    // then finds the checkpoint running and leaves it to us, instead of running it itself after
    // its own commit (SQLite's automatic checkpoint), which made the post wait for it. Not in
    // `took`: the slice's lock is released.
    checkpoints_.maybe();
    ++counts_.transactions;
    counts_.largest_transaction =
        std::max(counts_.largest_transaction, static_cast<std::int64_t>(pending_.size()));
    pending_.clear();
    // The next slice holds as many objects as kImportSlice of writing took (issues with long
    // threads cost more), within [kImportSliceMinIssues, kImportSliceMaxIssues].
    double target = std::chrono::duration<double>(kImportSlice).count();
    double next = took > 0 ? static_cast<double>(slice_) * target / took : kImportSliceMaxIssues;
    slice_ =
        std::clamp(static_cast<std::size_t>(next), kImportSliceMinIssues, kImportSliceMaxIssues);
  }

 private:
  Db& db_;
  IssueStore& store_;
  const std::vector<std::string>& paths_;
  const ImportOptions& options_;
  ImportCounts& counts_;
  Checkpoints& checkpoints_;
  std::vector<Checked> pending_;
  std::size_t slice_ = kImportSliceMinIssues;  // objects of the next slice
  std::map<std::size_t, std::int64_t> in_file_;
};

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
  struct RestoreCache {
    Db& db;
    std::int64_t value;
    ~RestoreCache() {
      sqlite3_exec(db.handle(), ("PRAGMA cache_size=" + std::to_string(value)).c_str(), nullptr,
                   nullptr, nullptr);
    }
  } restore{db, cache};
  // A malformed file: nothing is written.
  Resume resume;
  std::deque<Checked> kept = check_files(
      paths, options, options.kept_bytes ? options.kept_bytes : kImportKeptBytes, &resume);
  IssueStore store(db);
  store.set_limits(options.limits);
  store.begin_bulk();
  Checkpoints checkpoints(db);
  SliceWriter writer(db, store, paths, options, counts, checkpoints);
  for (; !kept.empty(); kept.pop_front()) writer.add(std::move(kept.front()));
  // The objects the first pass did not keep: parsed again.
  for (std::size_t f = resume.file; f < paths.size(); ++f) {
    std::string text = read_file(paths[f]);
    auto elements = elements_of(paths[f], text);
    for (std::size_t i = f == resume.file ? resume.element : 0; i < elements.size(); ++i) {
      auto [line, element] = elements[i];
      writer.add({record_of(paths[f], line, element, options), f, line});
    }
  }
  writer.write();
  checkpoints.now();  // the rest of the WAL: the import does it, not whoever closes the database
  return counts;
}

}  // namespace convfail
