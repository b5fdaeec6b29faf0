// The libcurl layer against the fake GitHub server and a small loopback server on 127.0.0.1,
// and the shared retry policy.
#include <doctest/doctest.h>
#include <httplib.h>

#include <chrono>
#include <thread>

#include "core/http.h"
#include "core/text.h"
#include "loopback_http.h"
#include "tests/fake_github/fake_github.h"

using namespace convfail;

TEST_CASE("http: easy client returns status, lower-cased headers and body, reuses the handle") {
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

namespace {

// Bodies, redirects and errors for the transfer limits.
struct LimitsServer : test::LoopbackHttp {
  LimitsServer() {
    add_transfer_routes();
    server.Get("/small", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("hello", "text/plain");
    });
    server.Get(R"(/hops/(\d+))", [](const httplib::Request& req, httplib::Response& res) {
      int left = std::stoi(req.matches[1]);
      if (left == 0)
        res.set_content("end", "text/plain");
      else
        res.set_redirect("/hops/" + std::to_string(left - 1));
    });
    server.Get("/to-file", [](const httplib::Request&, httplib::Response& res) {
      res.set_redirect("file:///etc/passwd");
    });
    server.Get("/missing", [](const httplib::Request&, httplib::Response& res) {
      res.status = 404;
      res.set_content("nope", "text/plain");
    });
    start();
  }
  http::Request get(const std::string& path) const {
    http::Request req;
    req.url = url(path);
    req.timeout_ms = 20000;
    return req;
  }
};

}  // namespace

TEST_CASE("http: the body cap holds by Content-Length and while streaming, streamed bodies") {
  LimitsServer srv;
  http::Client client;
  for (const char* path : {"/big", "/big-chunked"}) {
    CAPTURE(path);
    http::Request req = srv.get(path);
    req.max_body_bytes = 100000;
    http::Response r = client.perform(req);
    CHECK(r.failure == http::Failure::kTooLarge);
    CHECK(r.error == "body larger than 100000 bytes");
    CHECK(r.status == 0);
    CHECK(r.body.size() <= 100000);
    CHECK_FALSE(http::should_retry(r));
  }
  http::Request small = srv.get("/small");
  small.max_body_bytes = 5;         // exactly the size: allowed
  small.accept_compressed = false;  // else the cap also applies to the gzip bytes on the wire
  http::Response fits = client.perform(small);
  CHECK(fits.error == "");
  CHECK(fits.body == "hello");
  small.accept_compressed = true;
  small.max_body_bytes = 1000;
  CHECK(client.perform(small).body == "hello");

  // A sink gets the body chunk by chunk; Response::body stays empty.
  std::size_t streamed = 0, calls = 0;
  http::Request req = srv.get("/big-chunked");
  req.on_body = [&](const char*, std::size_t n) {
    streamed += n;
    ++calls;
    return true;
  };
  http::Response r = client.perform(req);
  REQUIRE(r.transport_ok());
  CHECK(streamed == 300000);
  CHECK(calls > 1);
  CHECK(r.body.empty());
  // A sink that refuses aborts the transfer; that is no transient failure.
  req.on_body = [](const char*, std::size_t) { return false; };
  r = client.perform(req);
  CHECK(r.failure == http::Failure::kAborted);
  CHECK_FALSE(http::should_retry(r));
  // A connection closed before the announced size: truncated, worth another attempt.
  r = client.perform(srv.get("/truncated"));
  CHECK(r.failure == http::Failure::kTruncated);
  CHECK(http::should_retry(r));
}

TEST_CASE("http: redirects are limited and stay on http and https") {
  LimitsServer srv;
  http::Client client;
  http::Request req = srv.get("/hops/3");
  req.max_redirects = 3;
  http::Response r = client.perform(req);
  CHECK(r.status == 200);
  CHECK(r.body == "end");
  req.max_redirects = 2;
  r = client.perform(req);
  CHECK(r.failure == http::Failure::kTooManyRedirects);
  CHECK_FALSE(http::should_retry(r));
  for (const std::string& url :
       {srv.get("/to-file").url, std::string("file:///etc/passwd"),
        "ftp://127.0.0.1:" + std::to_string(srv.port) + "/x", std::string("not a url")}) {
    CAPTURE(url);
    http::Request bad;
    bad.url = url;
    r = client.perform(bad);
    CHECK(r.failure == http::Failure::kBadUrl);
    CHECK(r.body.empty());
    CHECK_FALSE(http::should_retry(r));
  }
}

TEST_CASE("http: stop_on_http_error answers an error status without its body") {
  LimitsServer srv;
  http::Client client;
  http::Request req = srv.get("/missing");
  http::Response r = client.perform(req);
  CHECK(r.status == 404);
  CHECK(r.body == "nope");
  req.stop_on_http_error = true;
  r = client.perform(req);
  CHECK(r.transport_ok());
  CHECK(r.status == 404);
  CHECK(r.body.empty());
  CHECK_FALSE(http::should_retry(r));
}

TEST_CASE("http: one retry policy: what is transient, how long to wait, when to give up") {
  auto status = [](long s) {
    http::Response r;
    r.status = s;
    return http::should_retry(r);
  };
  CHECK(status(500));
  CHECK(status(503));
  CHECK(status(429));
  CHECK_FALSE(status(200));
  CHECK_FALSE(status(304));
  CHECK_FALSE(status(403));
  CHECK_FALSE(status(404));
  http::Response reset;
  reset.error = "Recv failure: Connection reset by peer";
  reset.failure = http::Failure::kOther;
  CHECK(http::should_retry(reset));

  http::RetryPolicy p{3, 1.0, 10.0};
  CHECK_FALSE(p.gives_up_after(3));
  CHECK(p.gives_up_after(4));
  std::mt19937 rng(42);
  for (int i = 0; i < 50; ++i) {
    double first = http::backoff_delay(p, 1, rng);
    CHECK(first >= 0.5);
    CHECK(first < 1.0);
    double third = http::backoff_delay(p, 3, rng);  // base * 2^2, with jitter
    CHECK(third >= 2.0);
    CHECK(third < 4.0);
    double late = http::backoff_delay(p, 20, rng);  // capped at max_delay_s
    CHECK(late >= 5.0);
    CHECK(late < 10.0);
  }
  // Jitter: clients failing together do not all wait the same.
  double a = http::backoff_delay(p, 2, rng), b = http::backoff_delay(p, 2, rng);
  CHECK(a != b);
}
