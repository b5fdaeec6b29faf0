#include "repro/fetch.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "core/http.h"
#include "core/text.h"

namespace convfail::repro {

namespace fs = std::filesystem;

namespace {

std::string hex(const unsigned char* d, unsigned n) {
  static const char* k = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < n; ++i) s += k[d[i] >> 4], s += k[d[i] & 15];
  return s;
}

// One attempt's output: the temporary file and the running sha256 of what was written to it.
struct Download {
  std::FILE* file = nullptr;
  EVP_MD_CTX* sha = nullptr;
  std::uint64_t size = 0;
  bool write(const char* data, std::size_t n) {
    if (std::fwrite(data, 1, n, file) != n) return false;
    EVP_DigestUpdate(sha, data, n);
    size += n;
    return true;
  }
};

http::Request download_request(const std::string& url, const FetchOptions& o) {
  http::Request req;
  req.url = url;
  req.headers = {{"User-Agent", "convfail-artifacts/0.1"}};
  req.max_redirects = o.max_redirects;
  req.connect_timeout_ms = o.connect_timeout_seconds * 1000;
  req.timeout_ms = o.timeout_seconds * 1000;
  req.low_speed_bytes = 1;  // stalled for 60 s: give up
  req.low_speed_seconds = 60;
  req.max_body_bytes = o.max_bytes;
  req.stop_on_http_error = true;
  req.accept_compressed = false;  // store the bytes as served: their sha256 names the file
  req.refuse_private_addresses = !o.allow_private_hosts;
  return req;
}

// One line for a failed attempt.
std::string describe_failure(const http::Response& resp, const FetchOptions& o,
                             const std::string& tmp) {
  if (resp.transport_ok()) return "HTTP " + std::to_string(resp.status);
  switch (resp.failure) {
    case http::Failure::kTooLarge:
      return "larger than " + std::to_string(o.max_bytes) + " bytes (--max-bytes)";
    case http::Failure::kTooManyRedirects:
      return "too many redirects (more than " + std::to_string(o.max_redirects) + ")";
    case http::Failure::kTruncated:
      return "truncated transfer (connection closed before the announced size)";
    case http::Failure::kBadUrl:
      return "bad URL: " + resp.error;
    case http::Failure::kAborted:
      return "cannot write " + tmp;
    case http::Failure::kPrivateAddress: {  // resp.error: "private address refused: 10.0.0.1 (...)"
      const std::string address = resp.error.substr(resp.error.find(": ") + 2);
      return "private address refused (use --allow-private-hosts): " + address;
    }
    default:
      return resp.error;
  }
}

}  // namespace

std::string sha256_file(const std::string& path) {
  return sha256_file_bounded(path, UINT64_MAX, 0, nullptr).value_or(sha256_hex(""));
}

std::optional<std::string> sha256_file_bounded(const std::string& path, std::uint64_t max_bytes,
                                               double seconds, std::string* why) {
  auto fail = [&](const std::string& text) -> std::optional<std::string> {
    if (why) *why = text;
    return std::nullopt;
  };
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(std::strerror(errno));
  std::unique_ptr<int, void (*)(int*)> closer(&fd, [](int* f) { close(*f); });
  struct stat st {};
  if (fstat(fd, &st) != 0) return fail(std::strerror(errno));
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes)
    return fail("larger than " + std::to_string(max_bytes) + " bytes");
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(seconds));
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  std::vector<char> buf(1 << 20);
  std::uint64_t total = 0;
  for (;;) {
    ssize_t got = read(fd, buf.data(), buf.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return fail(std::string("read: ") + std::strerror(errno));
    if (got == 0) break;
    total += static_cast<std::uint64_t>(got);
    if (total > max_bytes) return fail("larger than " + std::to_string(max_bytes) + " bytes");
    EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<std::size_t>(got));
    if (seconds > 0 && std::chrono::steady_clock::now() > deadline) {
      char text[64];
      std::snprintf(text, sizeof text, "not read within %g s", seconds);
      return fail(text);
    }
  }
  unsigned char md[32];
  unsigned len = 0;
  EVP_DigestFinal_ex(ctx.get(), md, &len);
  return hex(md, len);
}

FetchResult fetch_url(const std::string& url, const std::string& store_dir, const FetchOptions& o) {
  FetchResult r;
  std::error_code ec;
  fs::create_directories(store_dir, ec);
  if (ec) {
    r.error = "cannot create the store " + store_dir + ": " + ec.message();
    return r;
  }
  std::random_device rd;
  std::mt19937 rng(rd());
  std::string tmp = (fs::path(store_dir) / (".part-" + std::to_string(rd()))).string();
  const http::RetryPolicy policy{o.retries, o.retry_delay_seconds, o.retry_max_delay_seconds};
  http::Client client;
  http::Request req = download_request(url, o);
  for (int failures = 0;;) {
    r.attempts = failures + 1;
    Download d;
    d.file = std::fopen(tmp.c_str(), "wb");
    if (!d.file) {
      r.error = "cannot write " + tmp;
      return r;
    }
    std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> sha(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    EVP_DigestInit_ex(sha.get(), EVP_sha256(), nullptr);
    d.sha = sha.get();
    req.on_body = [&d](const char* data, std::size_t n) { return d.write(data, n); };
    http::Response resp = client.perform(req);
    bool closed = std::fclose(d.file) == 0;
    bool answered = resp.transport_ok() && resp.status < 400;
    if (answered && !closed) {
      fs::remove(tmp, ec);
      r.error = "cannot write " + tmp;
      return r;
    }
    if (answered) {
      unsigned char md[32];
      unsigned len = 0;
      EVP_DigestFinal_ex(d.sha, md, &len);
      r.sha256 = hex(md, len);
      r.size = d.size;
      r.path = (fs::path(store_dir) / r.sha256).string();
      if (fs::is_regular_file(r.path, ec)) {  // the same bytes, stored for another URL: keep those
        r.already_stored = true;
        fs::remove(tmp, ec);
      } else if (fs::rename(tmp, r.path, ec); ec) {
        r.error = "cannot store " + r.path + ": " + ec.message();
        fs::remove(tmp, ec);
        return r;
      }
      r.ok = true;
      r.error.clear();
      return r;
    }
    fs::remove(tmp, ec);
    r.error = describe_failure(resp, o, tmp);
    ++failures;
    if (!http::should_retry(resp)) return r;  // the same answer next time
    if (policy.gives_up_after(failures)) break;
    std::this_thread::sleep_for(
        std::chrono::duration<double>(http::backoff_delay(policy, failures, rng)));
  }
  r.error += " (after " + std::to_string(r.attempts) + " attempts)";
  return r;
}

namespace {

// An entry name in an error message (escaped by whoever prints it), shortened when long.
std::string entry_label(const std::string& name) {
  if (name.size() <= 100) return name;
  return name.substr(0, 60) + "... (" + std::to_string(name.size()) + " bytes)";
}

// Unpacks into the fresh folder `dir`; returns the reason of the first violation, empty when all
// went well. May throw std::filesystem_error (caught by unpack_archive).
std::string unpack_into(struct archive* a, const fs::path& dir, std::uint64_t max_total_bytes,
                        int max_files, UnpackResult& r) {
  struct archive_entry* e;
  char buf[65536];
  for (;;) {
    int rc = archive_read_next_header(a, &e);
    if (rc == ARCHIVE_EOF) return "";
    if (rc < ARCHIVE_WARN) return std::string("corrupt archive: ") + archive_error_string(a);
    const char* name_c = archive_entry_pathname(e);
    std::string name = name_c ? name_c : "";
    if (archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e) ||
        archive_entry_symlink(e)) {
      ++r.skipped;  // directories are created as needed; links and devices are never written
      continue;
    }
    std::string label = "archive entry " + entry_label(name);
    fs::path p(name);
    if (name.empty() || p.is_absolute() || name[0] == '/' || name[0] == '\\')
      return "archive entry with an absolute path: " + entry_label(name);
    for (const auto& part : p) {
      if (part == "..") return "archive entry escapes the folder: " + entry_label(name);
      if (part.native().size() > NAME_MAX)
        return label + ": entry name too long (a part of " + std::to_string(part.native().size()) +
               " bytes; the limit is " + std::to_string(NAME_MAX) + ")";
    }
    if (name.size() + dir.native().size() + 1 >= PATH_MAX)
      return label + ": entry name too long (" + std::to_string(name.size()) + " bytes)";
    if (++r.files > max_files)
      return "archive holds more than " + std::to_string(max_files) + " files";
    // The folders above the entry, one by one: a file (or anything else) in the way is this
    // archive's error, named, never a filesystem exception for the batch.
    fs::path out = dir, rel;
    fs::path parent = p.relative_path().parent_path();
    for (const auto& part : parent) {
      if (part.empty() || part == ".") continue;
      out /= part;
      rel /= part;
      std::error_code ec;
      auto st = fs::symlink_status(out, ec);
      if (fs::exists(st)) {
        if (!fs::is_directory(st)) return label + ": parent " + rel.string() + " is a file";
        continue;
      }
      if (!fs::create_directory(out, ec) && ec)
        return label + ": cannot create the folder " + rel.string() + ": " + ec.message();
    }
    out /= p.filename();
    int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      int err = errno;
      std::error_code ec;
      if (err == EEXIST)
        return label + (fs::is_directory(fs::symlink_status(out, ec))
                            ? ": a folder of that name exists"
                            : ": duplicate entry (the archive holds this name twice)");
      if (err == ENAMETOOLONG) return label + ": entry name too long";
      return label + ": cannot create: " + std::strerror(err);
    }
    for (;;) {
      la_ssize_t n = archive_read_data(a, buf, sizeof buf);
      if (n == 0) break;
      if (n < 0) {
        close(fd);
        return label + ": corrupt archive data: " + archive_error_string(a);
      }
      r.bytes += static_cast<std::uint64_t>(n);
      if (r.bytes > max_total_bytes) {
        close(fd);
        return "unpacked size exceeds " + std::to_string(max_total_bytes) +
               " bytes (zip bomb?); stopped";
      }
      if (write(fd, buf, static_cast<size_t>(n)) != n) {
        int err = errno;
        close(fd);
        return label + ": cannot write: " + std::strerror(err);
      }
    }
    if (close(fd) != 0) return label + ": cannot write: " + std::strerror(errno);
  }
}

}  // namespace

UnpackResult unpack_archive(const std::string& archive, const std::string& dest,
                            std::uint64_t max_total_bytes, int max_files) {
  UnpackResult r;
  std::unique_ptr<struct archive, int (*)(struct archive*)> a(archive_read_new(),
                                                              archive_read_free);
  archive_read_support_filter_all(a.get());
  archive_read_support_format_all(a.get());
  std::random_device rd;
  const fs::path tmp = dest + ".part-" + std::to_string(rd());
  std::error_code ec;
  auto fail = [&](const std::string& why) {
    r.ok = false;
    r.error = why;
    fs::remove_all(tmp, ec);
    return r;
  };
  if (archive_read_open_filename(a.get(), archive.c_str(), 65536) != ARCHIVE_OK)
    return fail(std::string("not an archive: ") + archive_error_string(a.get()));
  if (!fs::create_directories(tmp, ec) || ec)
    return fail("cannot create " + tmp.string() + ": " + ec.message());
  std::string why;
  try {
    why = unpack_into(a.get(), tmp, max_total_bytes, max_files, r);
  } catch (const fs::filesystem_error& e) {
    why = std::string("filesystem error: ") + e.code().message() + " (" + e.path1().string() + ")";
  }
  if (!why.empty()) return fail(why);
  if (fs::rename(tmp, dest, ec); ec) {
    std::error_code ec2;
    if (!fs::is_directory(dest, ec2)) return fail("cannot rename to " + dest + ": " + ec.message());
    fs::remove_all(tmp, ec);  // the same content, unpacked meanwhile by another run: use that
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
      std::cerr << "\r[" << counts.attempted << "/" << rows.size() << "] "
                << terminal_safe(row.url.substr(0, 60)) << "\x1b[K" << std::flush;
    FetchResult f;
    std::string status;
    bool shared = false;
    try {  // whatever goes wrong with this artifact is its error, not the batch's
      f = fetch_url(row.url, store_dir, options);
      status = f.ok ? "ok" : "error:" + f.error;
      shared = f.already_stored;
      if (f.ok && row.kind == "archive") {
        const std::string dest = f.path + ".d";
        if (fs::is_directory(dest)) {
          shared = true;  // unpacked for another URL serving the same bytes (only complete unpacks
                          // are renamed into place)
        } else {
          UnpackResult u =
              unpack_archive(f.path, dest, options.max_unpacked_bytes, options.max_unpacked_files);
          if (u.ok)
            ++counts.unpacked;
          else
            status = "error:unpack: " + u.error;
        }
      }
    } catch (const std::exception& e) {
      f.ok = false;
      status = std::string("error:") + e.what();
    }
    if (status == "ok") {
      ++counts.ok;
      if (shared) ++counts.shared;
    } else {
      ++counts.failed;
      counts.failures.push_back({row.id, row.url, status.substr(6)});
    }
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
