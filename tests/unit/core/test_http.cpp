// The libcurl layer against the fake GitHub server on 127.0.0.1.
#include <doctest/doctest.h>

#include <chrono>

#include "core/http.h"
#include "core/text.h"
#include "tests/fake_github/fake_github.h"

using namespace convfail;

TEST_CASE("http: easy client returns status, lower-cased headers and body; reuses the handle") {
  fake::FakeGitHub server({});
  http::Client client;
  http::Request req;
  req.url = server.url() + "/repos/o/r/issues?state=all&per_page=5";
  req.headers = {{"Accept", "application/json"}};
  http::Response r = client.perform(req);
  REQUIRE(r.transport_ok());
  CHECK(r.status == 200);
  CHECK(r.header("ETag").has_value());
  CHECK(r.header("x-ratelimit-remaining") == "5000");
  CHECK(r.body.front() == '[');
  // Conditional request with the ETag: 304 and no body.
  req.headers.push_back({"If-None-Match", *r.header("etag")});
  http::Response again = client.perform(req);
  CHECK(again.status == 304);
  CHECK(again.body.empty());
  CHECK(r.new_connections == 1);
  CHECK(again.new_connections == 0);  // kept alive
  req.url = server.url() + "/repos/o/r/issues/999999/comments";
  CHECK(client.perform(req).status == 404);
}

TEST_CASE("http: transport failures are reported, not thrown") {
  int port;
  {
    fake::FakeGitHub server({});
    port = server.port();
  }  // stopped: nothing listens there now
  http::Client client;
  http::Request req;
  req.url = "http://127.0.0.1:" + std::to_string(port) + "/repos/o/r/issues";
  req.connect_timeout_ms = 2000;
  http::Response r = client.perform(req);
  CHECK_FALSE(r.transport_ok());
  CHECK(r.status == 0);

  fake::FakeGitHubOptions slow;
  slow.latency_ms = 500;
  fake::FakeGitHub server(slow);
  req.url = server.url() + "/repos/o/r/issues";
  req.timeout_ms = 100;
  r = client.perform(req);
  CHECK_FALSE(r.transport_ok());
}

TEST_CASE("http: multi client runs requests in parallel and keeps their order") {
  fake::FakeGitHubOptions o;
  o.latency_ms = 200;
  fake::FakeGitHub server(o);
  http::MultiClient multi(4);
  std::vector<http::Request> reqs;
  for (int n = 1; n <= 12; ++n)
    reqs.push_back({server.url() + "/repos/o/r/issues/" + std::to_string(n) + "/timeline", {}});
  auto start = std::chrono::steady_clock::now();
  std::vector<http::Response> rs = multi.perform_all(reqs);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(rs.size() == 12);
  for (int n = 1; n <= 12; ++n) {
    CHECK(rs[n - 1].status == 200);
    CHECK(rs[n - 1].body.find("\"event\"") != std::string::npos);
  }
  // 12 requests of 200 ms, 4 at a time: about 0.6 s, far from the sequential 2.4 s.
  CHECK(s < 1.6);
  // A second batch reuses the four open connections.
  long opened = 0;
  for (const auto& r : multi.perform_all(reqs)) opened += r.new_connections;
  CHECK(opened == 0);
  CHECK(url_encode("module: onnx,a/b") == "module%3A%20onnx%2Ca%2Fb");
}
