// Artifact scanning (each link and code form) and fetching against a loopback server: size cap,
// redirect loop, truncated transfer, zip bomb, path traversal; the non-public address refusal
// (address classes, refused before connect); archives that clash with themselves (a file then a
// folder of that name, a name too long, a duplicate) as one artifact's error in a batch; the same
// bytes from two URLs shared.
#include <archive.h>
#include <archive_entry.h>
#include <doctest/doctest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "core/db.h"
#include "core/http.h"
#include "core/migrations.h"
#include "loopback_http.h"
#include "repro/artifact_scan.h"
#include "repro/fetch.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::repro;

namespace fs = std::filesystem;

namespace {

std::string kinds(const std::vector<FoundArtifact>& found) {
  std::string s;
  for (const auto& a : found) s += a.kind + " ";
  return s;
}

// An archive in memory: entries (name, size of zeros or content).
std::string make_archive(bool zip, const std::vector<std::pair<std::string, std::string>>& entries,
                         std::uint64_t zero_bytes_entry = 0) {
  std::string out;
  out.resize(8 << 20);
  size_t used = 0;
  struct archive* a = archive_write_new();
  if (zip) {
    archive_write_set_format_zip(a);
  } else {
    archive_write_set_format_pax_restricted(a);
    archive_write_add_filter_gzip(a);
  }
  archive_write_open_memory(a, out.data(), out.size(), &used);
  auto add = [&](const std::string& name, const std::string& data, std::uint64_t zeros) {
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(
        e, zeros ? static_cast<la_int64_t>(zeros) : static_cast<la_int64_t>(data.size()));
    archive_write_header(a, e);
    if (zeros) {
      std::string chunk(1 << 20, '\0');
      for (std::uint64_t w = 0; w < zeros; w += chunk.size())
        archive_write_data(a, chunk.data(), chunk.size());
    } else {
      archive_write_data(a, data.data(), data.size());
    }
    archive_entry_free(e);
  };
  for (const auto& [name, data] : entries) add(name, data, 0);
  if (zero_bytes_entry) add("bomb.bin", "", zero_bytes_entry);
  archive_write_close(a);
  archive_write_free(a);
  out.resize(used);
  return out;
}

struct LoopbackServer : convfail::test::LoopbackHttp {
  std::atomic<int> hits{0};
  LoopbackServer() {
    server.set_pre_routing_handler([this](const httplib::Request&, httplib::Response&) {
      ++hits;
      return httplib::Server::HandlerResponse::Unhandled;
    });
    add_transfer_routes();
    server.Get("/model.onnx", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("not really onnx", "application/octet-stream");
    });
    server.Get("/loop",
               [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/loop"); });
    server.Get("/hop", [](const httplib::Request&, httplib::Response& res) {
      res.set_redirect("/model.onnx");
    });
    server.Get("/missing",
               [](const httplib::Request&, httplib::Response& res) { res.status = 404; });
    server.Get("/bomb.zip", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(make_archive(true, {{"model.onnx", "m"}}, 64ull << 20), "application/zip");
    });
    server.Get("/evil.tar.gz", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(make_archive(false, {{"ok.txt", "fine"}, {"../escape.txt", "bad"}}),
                      "application/gzip");
    });
    server.Get("/abs.zip", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(make_archive(true, {{"/tmp/convfail-abs.txt", "bad"}}), "application/zip");
    });
    for (const char* path : {"/good.zip", "/mirror/good.zip"})  // the same bytes at two URLs
      server.Get(path, [](const httplib::Request&, httplib::Response& res) {
        res.set_content(make_archive(true, {{"net/model.onnx", "abc"},
                                            {"net/test_data_set_0/input_0.pb", "x"}}),
                        "application/zip");
      });
    server.Get("/file-then-dir.tar.gz", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(make_archive(false, {{"a.txt", "1"}, {"x", "file"}, {"x/y", "under"}}),
                      "application/gzip");
    });
    server.Get("/long-name.zip", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(make_archive(true, {{std::string(300, 'n') + ".onnx", "m"}}),
                      "application/zip");
    });
    server.Get("/twice.zip", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(make_archive(true, {{"m.onnx", "1"}, {"m.onnx", "2"}}), "application/zip");
    });
    start();
  }
};

FetchOptions quick() {
  FetchOptions o;
  o.max_bytes = 100000;
  o.retries = 1;
  o.retry_delay_seconds = 0.05;
  o.timeout_seconds = 20;
  o.max_unpacked_bytes = 8 << 20;
  o.max_unpacked_files = 10;
  o.allow_private_hosts = true;  // the test server is on loopback
  return o;
}

}  // namespace

TEST_CASE("artifact scan: model links, archives, attachments, file hosts") {
  std::string text =
      "See https://example.org/models/resnet.onnx, and the TF graph "
      "https://x.io/a/frozen.pb?raw=1\n"
      "weights: https://example.org/w.pth and https://example.org/k.h5 https://e.org/m.tflite "
      "https://e.org/m.pt\n"
      "archive (https://example.org/repro.tar.gz) or https://example.org/r.tgz or "
      "https://e.org/r.zip.\n"
      "[model.zip](https://github.com/user-attachments/files/123456/model.zip)\n"
      "https://github.com/onnx/onnx/files/9876543/repro_files\n"
      "drive: https://drive.google.com/file/d/abc/view and https://www.dropbox.com/s/x/m.onnx\n"
      "not an artifact: https://github.com/onnx/onnx/issues/1 https://example.org/doc.html\n";
  auto found = scan_text(text, "body");
  CHECK(kinds(found) ==
        "model model model model model model archive archive archive archive archive external_link "
        "external_link ");
  CHECK(found[0].url == "https://example.org/models/resnet.onnx");
  CHECK(found[1].url == "https://x.io/a/frozen.pb?raw=1");
  CHECK(found[6].url == "https://example.org/repro.tar.gz");
  CHECK(found[8].url == "https://e.org/r.zip");
  CHECK(found[9].url == "https://github.com/user-attachments/files/123456/model.zip");
  CHECK(found[12].url == "https://www.dropbox.com/s/x/m.onnx");  // a host, even with .onnx
  for (const auto& a : found) CHECK(a.source_field == "body");
}

TEST_CASE("artifact scan: a control character ends a URL") {
  // Found by tests/fuzz (artifact_scan): NUL bytes inside a link were taken into its URL, which
  // went to the artifacts table and the fetcher as it was.
  std::string text =
      std::string("https://github.com/use") + std::string(3, '\0') +
      "r-attachments/files/1/m.onnx https://e.org/a.onnx\x1b[2Jx https://e.org/b\x7f.pt";
  auto found = scan_text(text, "body");
  REQUIRE(found.size() == 1);
  CHECK(found[0].url == "https://e.org/a.onnx");
  for (const auto& a : found)
    for (char c : a.url) CHECK((static_cast<unsigned char>(c) >= 0x20 && c != 0x7f));
}

TEST_CASE("artifact scan: code blocks that export or build a model") {
  std::string text =
      "```python\nimport torch\ntorch.onnx.export(model, x, 'm.onnx', opset_version=13)\n```\n"
      "```\npython -m tf2onnx.convert --saved-model m --output m.onnx\n```\n"
      "```py\nfrom onnx import helper\nn = helper.make_node('Relu', ['x'], ['y'])\n```\n"
      "```\nTraceback (most recent call last):\n  RuntimeError: boom\n```\n";
  auto found = scan_text(text, "comment:2");
  REQUIRE(found.size() == 3);
  CHECK(kinds(found) == "script script script ");
  CHECK(found[0].code.find("torch.onnx.export") != std::string::npos);
  CHECK(found[1].code.find("tf2onnx") != std::string::npos);
  CHECK(found[2].source_field == "comment:2");
  CHECK(scan_text("plain text, no links", "body").empty());
  auto v6 = scan_text("[m](http://[::1]:8080/m.onnx) and http://[fe80::1]/a.zip", "body");
  REQUIRE(v6.size() == 2);
  CHECK(v6[0].url == "http://[::1]:8080/m.onnx");
  CHECK(v6[1].url == "http://[fe80::1]/a.zip");
  auto blob = scan_text("https://github.com/o/r/blob/main/m.onnx", "body");
  REQUIRE(blob.size() == 1);
  CHECK(blob[0].url == "https://github.com/o/r/blob/main/m.onnx?raw=true");
}

TEST_CASE("fetch: a model is stored by sha256, a redirect is followed") {
  LoopbackServer srv;
  convfail::test::TempDir dir;
  auto r = fetch_url(srv.url("/hop"), dir.path().string(), quick());
  REQUIRE(r.ok);
  CHECK(r.size == 15);
  CHECK(r.sha256.size() == 64);
  CHECK(r.path == (dir.path() / r.sha256).string());
  CHECK(sha256_file(r.path) == r.sha256);
}

TEST_CASE("fetch: size cap by Content-Length and while streaming") {
  LoopbackServer srv;
  convfail::test::TempDir dir;
  auto a = fetch_url(srv.url("/big"), dir.path().string(), quick());
  CHECK_FALSE(a.ok);
  CHECK(a.error.find("larger than 100000 bytes") != std::string::npos);
  CHECK(a.attempts == 1);  // not retried
  auto b = fetch_url(srv.url("/big-chunked"), dir.path().string(), quick());
  CHECK_FALSE(b.ok);
  CHECK(b.error.find("larger than 100000 bytes") != std::string::npos);
  CHECK(fs::is_empty(dir.path()));  // no partial file left behind
}

TEST_CASE("fetch: redirect loop, truncated transfer, HTTP errors, bad schemes") {
  LoopbackServer srv;
  convfail::test::TempDir dir;
  auto loop = fetch_url(srv.url("/loop"), dir.path().string(), quick());
  CHECK_FALSE(loop.ok);
  CHECK(loop.error.find("too many redirects") != std::string::npos);
  auto trunc = fetch_url(srv.url("/truncated"), dir.path().string(), quick());
  CHECK_FALSE(trunc.ok);
  CHECK(trunc.error.find("truncated") != std::string::npos);
  CHECK(trunc.attempts == 2);  // transient: retried once
  auto missing = fetch_url(srv.url("/missing"), dir.path().string(), quick());
  CHECK(missing.error == "HTTP 404");
  auto file = fetch_url("file:///etc/passwd", dir.path().string(), quick());
  CHECK_FALSE(file.ok);
  CHECK(file.error.find("bad URL") != std::string::npos);
  CHECK(fs::is_empty(dir.path()));
}

TEST_CASE("unpack: good archive, zip bomb, path traversal, absolute path") {
  LoopbackServer srv;
  convfail::test::TempDir dir;
  auto o = quick();
  o.max_bytes = 4 << 20;
  auto good = fetch_url(srv.url("/good.zip"), dir.path().string(), o);
  REQUIRE(good.ok);
  auto u = unpack_archive(good.path, good.path + ".d", o.max_unpacked_bytes, o.max_unpacked_files);
  REQUIRE(u.ok);
  CHECK(u.files == 2);
  CHECK(fs::exists(good.path + ".d/net/model.onnx"));

  auto bomb = fetch_url(srv.url("/bomb.zip"), dir.path().string(), o);
  REQUIRE(bomb.ok);
  CHECK(bomb.size < 1000000);  // 64 MiB of zeros compress to little
  auto ub = unpack_archive(bomb.path, bomb.path + ".d", o.max_unpacked_bytes, o.max_unpacked_files);
  CHECK_FALSE(ub.ok);
  CHECK(ub.error.find("zip bomb") != std::string::npos);
  CHECK_FALSE(fs::exists(bomb.path + ".d"));

  auto evil = fetch_url(srv.url("/evil.tar.gz"), dir.path().string(), o);
  REQUIRE(evil.ok);
  auto ue = unpack_archive(evil.path, evil.path + ".d", o.max_unpacked_bytes, o.max_unpacked_files);
  CHECK_FALSE(ue.ok);
  CHECK(ue.error.find("escapes the folder") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path() / "escape.txt"));

  auto abs = fetch_url(srv.url("/abs.zip"), dir.path().string(), o);
  REQUIRE(abs.ok);
  auto ua = unpack_archive(abs.path, abs.path + ".d", o.max_unpacked_bytes, o.max_unpacked_files);
  CHECK_FALSE(ua.ok);
  CHECK(ua.error.find("absolute path") != std::string::npos);
  CHECK_FALSE(fs::exists("/tmp/convfail-abs.txt"));

  auto too_many = unpack_archive(good.path, dir.file("few"), o.max_unpacked_bytes, 1);
  CHECK_FALSE(too_many.ok);
  CHECK(too_many.error.find("more than 1 files") != std::string::npos);
  auto not_archive = unpack_archive(dir.write("x.txt", "hello"), dir.file("x.d"), 1000, 10);
  CHECK_FALSE(not_archive.ok);
}

TEST_CASE("ssrf: address classes of IPv4, IPv6 and IPv4 embedded in IPv6") {
  using convfail::http::address_class;
  auto cls = [](const char* ip) {
    const char* c = address_class(std::string(ip));
    return std::string(c ? c : "(not an address)");
  };
  const std::vector<std::pair<const char*, const char*>> table = {
      {"0.0.0.0", "unspecified"},
      {"0.255.255.255", "unspecified"},
      {"1.0.0.0", "public"},
      {"8.8.8.8", "public"},
      {"9.255.255.255", "public"},
      {"10.0.0.0", "private"},
      {"10.255.255.255", "private"},
      {"11.0.0.0", "public"},
      {"100.63.255.255", "public"},
      {"100.64.0.0", "shared"},
      {"100.127.255.255", "shared"},
      {"100.128.0.0", "public"},
      {"126.255.255.255", "public"},
      {"127.0.0.1", "loopback"},
      {"127.255.255.254", "loopback"},
      {"128.0.0.0", "public"},
      {"169.253.255.255", "public"},
      {"169.254.0.0", "link-local"},
      {"169.254.169.254", "link-local"},
      {"169.255.0.0", "public"},
      {"172.15.255.255", "public"},
      {"172.16.0.0", "private"},
      {"172.31.255.255", "private"},
      {"172.32.0.0", "public"},
      {"192.167.255.255", "public"},
      {"192.168.0.0", "private"},
      {"192.168.255.255", "private"},
      {"192.169.0.0", "public"},
      {"223.255.255.255", "public"},
      {"224.0.0.0", "multicast"},
      {"239.255.255.255", "multicast"},
      {"240.0.0.0", "reserved"},
      {"255.255.255.255", "reserved"},
      {"::", "unspecified"},
      {"::1", "loopback"},
      {"::2", "unspecified"},  // ::0.0.0.2, IPv4-compatible
      {"::ffff:127.0.0.1", "loopback"},
      {"::ffff:7f00:1", "loopback"},
      {"::ffff:10.1.2.3", "private"},
      {"::ffff:169.254.169.254", "link-local"},
      {"::ffff:0.0.0.0", "unspecified"},
      {"::ffff:8.8.8.8", "public"},
      {"::127.0.0.1", "loopback"},
      {"::8.8.8.8", "public"},
      {"64:ff9b::7f00:1", "loopback"},
      {"64:ff9b::808:808", "public"},
      {"2002:7f00:1::", "loopback"},
      {"2002:a00:1::1", "private"},
      {"2002:808:808::1", "public"},
      {"fe80::1", "link-local"},
      {"febf:ffff::1", "link-local"},
      {"fec0::1", "private"},
      {"fc00::1", "private"},
      {"fdff:ffff::1", "private"},
      {"fbff:ffff::1", "public"},
      {"ff02::1", "multicast"},
      {"ff00::", "multicast"},
      {"2001:db8::1", "public"},
      {"2606:4700::1111", "public"},
      {"fe00::1", "public"},
      {"localhost", "(not an address)"},
      {"127.1", "(not an address)"},
      {"0177.0.0.1", "(not an address)"},
      {"", "(not an address)"},
      {"1.2.3.4.5", "(not an address)"},
      {"::ffff:1.2.3", "(not an address)"},
  };
  for (const auto& row : table) {  // CAPTURE's lambda may not capture a structured binding
    const char* ip = row.first;
    const char* want = row.second;
    CAPTURE(ip);
    CHECK(cls(ip) == want);
  }
}

TEST_CASE("ssrf: loopback, localhost, [::1], metadata and private addresses are refused") {
  LoopbackServer srv;
  convfail::test::TempDir dir;
  FetchOptions o = quick();
  o.allow_private_hosts = false;
  o.connect_timeout_seconds = 10;
  std::string port = std::to_string(srv.port);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {srv.url("/model.onnx"), "127.0.0.1 (loopback)"},
      {"http://localhost:" + port + "/model.onnx", "(loopback)"},  // a name resolving to loopback
      {"http://[::1]:" + port + "/model.onnx", "::1 (loopback)"},
      {"http://169.254.169.254/latest/meta-data/", "169.254.169.254 (link-local)"},
      {"http://10.0.0.1:22/", "10.0.0.1 (private)"},
      {"https://[::ffff:127.0.0.1]:" + port + "/", "127.0.0.1 (loopback)"},
      {"http://2130706433:" + port + "/model.onnx", "127.0.0.1 (loopback)"},  // decimal form
      {"http://0.0.0.0:" + port + "/model.onnx", "0.0.0.0 (unspecified)"},
  };
  for (const auto& c : cases) {
    const std::string& url = c.first;
    const std::string& what = c.second;
    CAPTURE(url);
    auto t0 = std::chrono::steady_clock::now();
    auto r = fetch_url(url, dir.path().string(), o);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK_FALSE(r.ok);
    CHECK(r.error.find("private address refused") == 0);
    CHECK(r.error.find(what) != std::string::npos);
    CHECK(r.error.find("(use --allow-private-hosts)") != std::string::npos);
    CHECK(r.attempts == 1);  // not retried: the same answer next time
    CHECK(seconds < 2.0);    // refused before connect(), no connect timeout waited for
  }
  CHECK(srv.hits == 0);  // the server never saw a request
  CHECK(fs::is_empty(dir.path()));
  // The flag lets the same loopback URL through.
  auto allowed = fetch_url(srv.url("/model.onnx"), dir.path().string(), quick());
  CHECK(allowed.ok);
  CHECK(srv.hits == 1);
}

TEST_CASE("unpack: a file then a folder of that name, a 300-byte name, a duplicate entry") {
  LoopbackServer srv;
  convfail::test::TempDir dir;
  auto o = quick();
  for (const auto& c : std::vector<std::pair<std::string, std::string>>{
           {"/file-then-dir.tar.gz", "archive entry x/y: parent x is a file"},
           {"/long-name.zip", ": entry name too long (a part of 305 bytes; the limit is 255)"},
           {"/twice.zip", "archive entry m.onnx: duplicate entry"}}) {
    const std::string& path = c.first;
    const std::string& want = c.second;
    CAPTURE(path);
    auto f = fetch_url(srv.url(path), dir.path().string(), o);
    REQUIRE(f.ok);
    auto u = unpack_archive(f.path, f.path + ".d", o.max_unpacked_bytes, o.max_unpacked_files);
    CHECK_FALSE(u.ok);
    CHECK(u.error.find(want) != std::string::npos);
    CHECK(u.error.find("(duplicate entry?)") == std::string::npos);
    CHECK_FALSE(fs::exists(f.path + ".d"));
  }
  for (const auto& e : fs::directory_iterator(dir.path()))  // no temporary folder left
    CHECK(e.path().filename().string().find(".part-") == std::string::npos);
}

TEST_CASE("fetch batch: bad archives are their own errors, the same bytes are one shared folder") {
  LoopbackServer srv;
  convfail::test::TempDir dir;
  convfail::Db db(dir.file("c.db"));
  convfail::migrate(db);
  db.exec("INSERT INTO repositories(full_name) VALUES ('o/r')");
  db.exec("INSERT INTO issues(repo_id, number, title) VALUES (1, 7, 't')");
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"archive", "/good.zip"},      {"archive", "/file-then-dir.tar.gz"},
      {"archive", "/long-name.zip"}, {"archive", "/evil.tar.gz"},
      {"archive", "/bomb.zip"},      {"archive", "/mirror/good.zip"},
      {"model", "/model.onnx"},      {"model", "/missing"},
  };
  auto ins = db.prepare("INSERT INTO artifacts(issue_id, kind, url) VALUES (1, ?, ?)");
  for (const auto& [kind, path] : rows) ins.bind(1, kind).bind(2, srv.url(path)).run();
  auto o = quick();
  o.max_bytes = 4 << 20;
  std::string store = dir.file("store");
  FetchCounts c = fetch_artifacts(db, store, o, std::nullopt, false, false);
  CHECK(c.attempted == 8);
  CHECK(c.ok == 3);  // good.zip, its mirror, model.onnx
  CHECK(c.failed == 5);
  CHECK(c.unpacked == 1);
  CHECK(c.shared == 1);
  REQUIRE(c.failures.size() == 5);
  CHECK(c.failures[0].url == srv.url("/file-then-dir.tar.gz"));
  CHECK(c.failures[0].error == "unpack: archive entry x/y: parent x is a file");
  CHECK(c.failures[1].error.find("entry name too long") != std::string::npos);
  CHECK(c.failures[2].error.find("escapes the folder") != std::string::npos);
  CHECK(c.failures[3].error.find("zip bomb") != std::string::npos);
  CHECK(c.failures[4].error == "HTTP 404");
  auto status = [&](const std::string& path) {
    auto st =
        db.prepare("SELECT fetch_status, coalesce(local_path, '') FROM artifacts WHERE url = ?");
    st.bind(1, srv.url(path));
    REQUIRE(st.step());
    return std::make_pair(st.text(0), st.text(1));
  };
  auto first = status("/good.zip"), second = status("/mirror/good.zip");
  CHECK(first.first == "ok");
  CHECK(second.first == "ok");
  CHECK(first.second == second.second);                   // one blob shared by both links
  CHECK(fs::exists(first.second + ".d/net/model.onnx"));  // the first's folder intact
  int folders = 0, parts = 0;
  for (const auto& e : fs::directory_iterator(store)) {
    folders += fs::is_directory(e.path());
    parts += e.path().filename().string().find(".part-") != std::string::npos;
  }
  CHECK(folders == 1);  // only the good archive's folder: failed unpacks left nothing
  CHECK(parts == 0);
  CHECK(status("/bomb.zip").first.rfind("error:unpack: unpacked size exceeds", 0) == 0);
}
