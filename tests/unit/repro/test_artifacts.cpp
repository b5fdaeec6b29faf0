// Artifact scanning (each link and code form) and fetching against a loopback server: size cap,
// redirect loop, truncated transfer, zip bomb, path traversal.
#include <archive.h>
#include <archive_entry.h>
#include <doctest/doctest.h>
#include <httplib.h>

#include <filesystem>
#include <thread>

#include "loopback_http.h"
#include "repro/artifact_scan.h"
#include "repro/fetch.h"
#include "test_helpers.h"

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
  LoopbackServer() {
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
    server.Get("/good.zip", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(
          make_archive(true, {{"net/model.onnx", "abc"}, {"net/test_data_set_0/input_0.pb", "x"}}),
          "application/zip");
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
  auto blob = scan_text("https://github.com/o/r/blob/main/m.onnx", "body");
  REQUIRE(blob.size() == 1);
  CHECK(blob[0].url == "https://github.com/o/r/blob/main/m.onnx?raw=true");
}

TEST_CASE("fetch: a model is stored by sha256; a redirect is followed") {
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
