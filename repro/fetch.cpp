#include "repro/fetch.h"

#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <thread>

namespace convfail::repro {

namespace fs = std::filesystem;

namespace {

std::string hex(const unsigned char* d, unsigned n) {
  static const char* k = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < n; ++i) s += k[d[i] >> 4], s += k[d[i] & 15];
  return s;
}

struct Download {
  std::FILE* file = nullptr;
  EVP_MD_CTX* sha = nullptr;
  std::uint64_t size = 0;
  std::uint64_t cap = 0;
  bool over_cap = false;
};

size_t on_data(char* data, size_t, size_t n, void* user) {
  auto* d = static_cast<Download*>(user);
  if (d->size + n > d->cap) {
    d->over_cap = true;
    return 0;  // aborts the transfer: the cap holds even without Content-Length
  }
  if (std::fwrite(data, 1, n, d->file) != n) return 0;
  EVP_DigestUpdate(d->sha, data, n);
  d->size += n;
  return n;
}

void curl_init_once() {
  static bool done = (curl_global_init(CURL_GLOBAL_DEFAULT), true);
  (void)done;
}

}  // namespace

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) EVP_DigestUpdate(ctx.get(), buf, in.gcount());
  unsigned char md[32];
  unsigned len = 0;
  EVP_DigestFinal_ex(ctx.get(), md, &len);
  return hex(md, len);
}

std::string sha256_hex(const std::string& data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  return hex(md, len);
}

FetchResult fetch_url(const std::string& url, const std::string& store_dir, const FetchOptions& o) {
  curl_init_once();
  FetchResult r;
  fs::create_directories(store_dir);
  std::random_device rd;
  std::string tmp = (fs::path(store_dir) / (".part-" + std::to_string(rd()))).string();
  for (int attempt = 0; attempt <= o.retries; ++attempt) {
    r.attempts = attempt + 1;
    if (attempt)
      std::this_thread::sleep_for(std::chrono::duration<double>(o.retry_delay_seconds * attempt));
    Download d;
    d.cap = o.max_bytes;
    d.file = std::fopen(tmp.c_str(), "wb");
    if (!d.file) {
      r.error = "cannot write " + tmp;
      return r;
    }
    std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> sha(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    EVP_DigestInit_ex(sha.get(), EVP_sha256(), nullptr);
    d.sha = sha.get();
    std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
    char errbuf[CURL_ERROR_SIZE] = "";
    CURL* c = curl.get();
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, static_cast<long>(o.max_redirects));
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, o.connect_timeout_seconds);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, o.timeout_seconds);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);  // stalled for 60 s: give up
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
    curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(o.max_bytes));
    curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "convfail-artifacts/0.1");
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &d);
    CURLcode rc = curl_easy_perform(c);
    std::fclose(d.file);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    if (rc == CURLE_OK) {
      unsigned char md[32];
      unsigned len = 0;
      EVP_DigestFinal_ex(d.sha, md, &len);
      r.sha256 = hex(md, len);
      r.size = d.size;
      r.path = (fs::path(store_dir) / r.sha256).string();
      fs::rename(tmp, r.path);
      r.ok = true;
      r.error.clear();
      return r;
    }
    std::error_code ec;
    fs::remove(tmp, ec);
    bool transient = true;
    if (d.over_cap || rc == CURLE_FILESIZE_EXCEEDED) {
      r.error = "larger than " + std::to_string(o.max_bytes) + " bytes (--max-bytes)";
      transient = false;
    } else if (rc == CURLE_TOO_MANY_REDIRECTS) {
      r.error = "too many redirects (more than " + std::to_string(o.max_redirects) + ")";
      transient = false;
    } else if (rc == CURLE_HTTP_RETURNED_ERROR) {
      r.error = "HTTP " + std::to_string(status);
      transient = status >= 500 || status == 429;
    } else if (rc == CURLE_PARTIAL_FILE) {
      r.error = "truncated transfer (connection closed before the announced size)";
    } else if (rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT) {
      r.error = std::string("bad URL: ") + curl_easy_strerror(rc);
      transient = false;
    } else {
      r.error = std::string(curl_easy_strerror(rc)) + (errbuf[0] ? std::string(": ") + errbuf : "");
    }
    if (!transient) return r;
  }
  r.error += " (after " + std::to_string(r.attempts) + " attempts)";
  return r;
}

UnpackResult unpack_archive(const std::string& archive, const std::string& dest,
                            std::uint64_t max_total_bytes, int max_files) {
  UnpackResult r;
  std::unique_ptr<struct archive, int (*)(struct archive*)> a(archive_read_new(),
                                                              archive_read_free);
  archive_read_support_filter_all(a.get());
  archive_read_support_format_all(a.get());
  auto fail = [&](const std::string& why) {
    r.ok = false;
    r.error = why;
    std::error_code ec;
    fs::remove_all(dest, ec);
    return r;
  };
  if (archive_read_open_filename(a.get(), archive.c_str(), 65536) != ARCHIVE_OK)
    return fail(std::string("not an archive: ") + archive_error_string(a.get()));
  fs::create_directories(dest);
  struct archive_entry* e;
  char buf[65536];
  for (;;) {
    int rc = archive_read_next_header(a.get(), &e);
    if (rc == ARCHIVE_EOF) break;
    if (rc < ARCHIVE_WARN)
      return fail(std::string("corrupt archive: ") + archive_error_string(a.get()));
    const char* name_c = archive_entry_pathname(e);
    std::string name = name_c ? name_c : "";
    if (archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e) ||
        archive_entry_symlink(e)) {
      ++r.skipped;  // directories are created as needed; links and devices are never written
      continue;
    }
    fs::path p(name);
    if (name.empty() || p.is_absolute() || name[0] == '/' || name[0] == '\\')
      return fail("archive entry with an absolute path: " + name);
    for (const auto& part : p)
      if (part == "..") return fail("archive entry escapes the folder: " + name);
    if (++r.files > max_files)
      return fail("archive holds more than " + std::to_string(max_files) + " files");
    fs::path out = fs::path(dest) / p.relative_path();
    fs::create_directories(out.parent_path());
    int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return fail("cannot create " + out.string() + " (duplicate entry?)");
    for (;;) {
      la_ssize_t n = archive_read_data(a.get(), buf, sizeof buf);
      if (n == 0) break;
      if (n < 0) {
        close(fd);
        return fail(std::string("corrupt archive data: ") + archive_error_string(a.get()));
      }
      r.bytes += static_cast<std::uint64_t>(n);
      if (r.bytes > max_total_bytes) {
        close(fd);
        return fail("unpacked size exceeds " + std::to_string(max_total_bytes) +
                    " bytes (zip bomb?); stopped");
      }
      if (write(fd, buf, static_cast<size_t>(n)) != n) {
        close(fd);
        return fail("cannot write " + out.string());
      }
    }
    close(fd);
  }
  r.ok = true;
  return r;
}

std::string artifact_store_for(const std::string& db_path) {
  fs::path dir = fs::absolute(db_path).parent_path();
  return (dir / "convfail-data" / "artifacts").string();
}

FetchCounts fetch_artifacts(Db& db, const std::string& store_dir, const FetchOptions& options,
                            std::optional<std::int64_t> issue_id, bool retry_failed,
                            bool progress) {
  FetchCounts counts;
  struct Row {
    std::int64_t id;
    std::string kind, url;
  };
  std::vector<Row> rows;
  {
    std::string sql =
        "SELECT id, kind, url FROM artifacts WHERE kind IN ('model', 'archive') AND url IS NOT NULL"
        " AND (fetch_status IS NULL";
    sql += retry_failed ? " OR fetch_status LIKE 'error:%')" : ")";
    if (issue_id) sql += " AND issue_id = ?";
    sql += " ORDER BY id";
    auto st = db.prepare(sql);
    if (issue_id) st.bind(1, *issue_id);
    while (st.step()) rows.push_back({st.int64(0), st.text(1), st.text(2)});
  }
  auto update = db.prepare(
      "UPDATE artifacts SET fetch_status = ?, sha256 = ?, size_bytes = ?, local_path = ? WHERE id "
      "= ?");
  for (const auto& row : rows) {
    ++counts.attempted;
    if (progress)
      std::cerr << "\r[" << counts.attempted << "/" << rows.size() << "] " << row.url.substr(0, 60)
                << "\x1b[K" << std::flush;
    FetchResult f = fetch_url(row.url, store_dir, options);
    std::string status = f.ok ? "ok" : "error:" + f.error;
    if (f.ok && row.kind == "archive") {
      UnpackResult u = unpack_archive(f.path, f.path + ".d", options.max_unpacked_bytes,
                                      options.max_unpacked_files);
      if (u.ok)
        ++counts.unpacked;
      else
        status = "error:unpack: " + u.error;
    }
    if (status == "ok")
      ++counts.ok;
    else
      ++counts.failed;
    Transaction tx(db);
    update.bind(1, status);
    if (f.ok) {
      update.bind(2, f.sha256).bind(3, static_cast<std::int64_t>(f.size)).bind(4, f.path);
    } else {
      update.bind_null(2).bind_null(3).bind_null(4);
    }
    update.bind(5, row.id);
    update.run();
    tx.commit();
  }
  if (progress) std::cerr << "\r\x1b[K";
  return counts;
}

}  // namespace convfail::repro
