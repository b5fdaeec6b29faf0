#include "repro/artifact_scan.h"

#include <re2/re2.h>

#include <set>

#include "core/issue_rows.h"
#include "core/markdown.h"
#include "core/text.h"

namespace convfail::repro {

namespace {

// The URL's path (no query or fragment), lower-cased.
std::string url_path(const std::string& url) {
  std::string p = url.substr(0, url.find_first_of("?#"));
  return lower(p);
}

const char* const kModelExt[] = {".onnx", ".pb", ".tflite", ".h5", ".pt", ".pth"};
const char* const kArchiveExt[] = {".zip", ".tar.gz", ".tgz"};
// Sharing sites whose links lead to a web page, not the file: recorded, never fetched.
const char* const kFileHosts[] = {"drive.google.com",  "docs.google.com", "dropbox.com",
                                  "onedrive.live.com", "1drv.ms",         "mega.nz",
                                  "pan.baidu.com",     "wetransfer.com",  "we.tl",
                                  "huggingface.co",    "box.com",         "sharepoint.com",
                                  "icloud.com"};

std::string host_of(const std::string& url) {
  auto start = url.find("://");
  if (start == std::string::npos) return "";
  start += 3;
  auto end = url.find_first_of("/?#:", start);
  return lower(url.substr(start, end == std::string::npos ? std::string::npos : end - start));
}

bool host_matches(const std::string& host, const std::string& domain) {
  return host == domain || ends_with(host, "." + domain);
}

// kind for a URL, or "" when it is not an artifact.
std::string classify_url(const std::string& url) {
  std::string host = host_of(url), path = url_path(url);
  for (const char* h : kFileHosts)
    if (host_matches(host, h)) return "external_link";
  for (const char* e : kArchiveExt)
    if (ends_with(path, e)) return "archive";
  for (const char* e : kModelExt)
    if (ends_with(path, e)) return "model";
  static const RE2 kAttachment(
      R"((?i)^https?://github\.com/(user-attachments/files|[\w.-]+/[\w.-]+/files)/\d+/.+)");
  if (RE2::PartialMatch(url, kAttachment)) return "archive";  // GitHub accepts models only zipped
  return "";
}

bool exports_model(const std::string& code) {
  static const RE2 kExport(
      R"(torch\.onnx\.export|torch\.onnx\.dynamo_export|tf2onnx|onnx\.helper\.make_|helper\.make_(model|graph|node))");
  return RE2::PartialMatch(code, kExport);
}

}  // namespace

std::vector<FoundArtifact> scan_text(const std::string& text, const std::string& source_field) {
  std::vector<FoundArtifact> out;
  std::set<std::string> seen;
  // Code blocks first; links inside code blocks still count (people paste wget lines).
  for (auto& block : split_markdown_code(text).blocks) {
    if (!block.fenced) continue;  // scripts come from fenced blocks, as in reproduce --scripts
    if (exports_model(block.code) && seen.insert("script\n" + block.code).second)
      out.push_back({"script", source_field, "", std::move(block.code)});
  }
  // An IPv6 literal host ([::1]) is a URL too: it must reach the fetcher's address check. A
  // control character (NUL, ESC, DEL) ends a URL: no URL holds one, and it must not reach the
  // artifacts table, the fetcher or a terminal.
  static const RE2 kUrl(
      R"((https?://(?:\[[0-9A-Fa-f:.]+\])?[^\s<>"'`()\[\]{}|\\^\x00-\x1f\x7f]+))");
  re2::StringPiece rest(text);
  std::string url;
  while (RE2::FindAndConsume(&rest, kUrl, &url)) {
    while (!url.empty() && std::string(".,;:!*_~").find(url.back()) != std::string::npos)
      url.pop_back();
    std::string kind = classify_url(url);
    // A github.com .../blob/... link is the HTML viewer; ?raw=true redirects to the file.
    if ((kind == "model" || kind == "archive") && host_of(url) == "github.com" &&
        url.find("/blob/") != std::string::npos && url.find('?') == std::string::npos)
      url += "?raw=true";
    if (kind.empty() || !seen.insert(kind + "\n" + url).second) continue;
    out.push_back({kind, source_field, url, ""});
  }
  return out;
}

ScanCounts scan_issues(Db& db, std::optional<std::int64_t> issue_id) {
  ScanCounts counts;
  struct Text {
    std::int64_t issue;
    std::string field, body;
  };
  std::vector<Text> texts;
  {
    std::string where = issue_id ? " WHERE id = ?" : "";
    auto st = db.prepare("SELECT id, body FROM issues" + where + " ORDER BY id");
    if (issue_id) st.bind(1, *issue_id);
    while (st.step()) {
      ++counts.issues;
      texts.push_back({st.int64(0), "body", st.text(1)});
    }
    for_each_comment(db, issue_id, [&](CommentRow&& c) {
      texts.push_back({c.issue_id, "comment:" + std::to_string(c.position), std::move(c.body)});
    });
  }
  Transaction tx(db);
  // UNIQUE treats NULLs as distinct, so duplicates are checked with IS.
  auto insert = db.prepare(
      "INSERT INTO artifacts (issue_id, kind, source_field, url, code) SELECT ?1, ?2, ?3, ?4, ?5"
      " WHERE NOT EXISTS (SELECT 1 FROM artifacts WHERE issue_id = ?1 AND kind = ?2 AND url IS ?4"
      " AND code IS ?5)");
  for (const auto& t : texts) {
    for (const auto& a : scan_text(t.body, t.field)) {
      ++counts.found;
      insert.bind(1, t.issue).bind(2, a.kind).bind(3, a.source_field);
      if (a.url.empty())
        insert.bind_null(4);
      else
        insert.bind(4, a.url);
      if (a.code.empty())
        insert.bind_null(5);
      else
        insert.bind(5, a.code);
      insert.run();
      counts.inserted += db.changes();
    }
  }
  // File-host links are never fetched: say so once.
  db.exec(
      "UPDATE artifacts SET fetch_status = 'skipped:file host link (not fetched)'"
      " WHERE kind = 'external_link' AND fetch_status IS NULL");
  tx.commit();
  return counts;
}

}  // namespace convfail::repro
