// A cpp-httplib server on 127.0.0.1 for unit tests, on its own thread until destroyed, with the
// transfer routes that both the HTTP layer's and the artifact fetcher's tests need.
#pragma once

#include <httplib.h>

#include <string>
#include <thread>

namespace convfail::test {

class LoopbackHttp {
 public:
  httplib::Server server;

  // Registers /big (300,000 bytes with Content-Length), /big-chunked (300,000 bytes, chunked)
  // and /truncated (announces 1,000 bytes, closes after 10).
  void add_transfer_routes() {
    server.Get("/big", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(300000, 'x'), "application/octet-stream");
    });
    server.Get("/big-chunked", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("application/octet-stream",
                                       [](size_t offset, httplib::DataSink& sink) {
                                         if (offset >= 300000) {
                                           sink.done();
                                           return true;
                                         }
                                         std::string chunk(10000, 'y');
                                         sink.write(chunk.data(), chunk.size());
                                         return true;
                                       });
    });
    server.Get("/truncated", [](const httplib::Request&, httplib::Response& res) {
      res.set_content_provider(1000, "application/octet-stream",
                               [](size_t offset, size_t, httplib::DataSink& sink) {
                                 if (offset > 0) return false;  // close after 10 of 1000 bytes
                                 sink.write("0123456789", 10);
                                 return true;
                               });
    });
  }
  // Binds a free port on loopback and serves; call after registering routes.
  void start() {
    port = server.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server.listen_after_bind(); });
  }
  ~LoopbackHttp() {
    server.stop();
    if (thread_.joinable()) thread_.join();
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port) + path;
  }

  int port = 0;

 private:
  std::thread thread_;
};

}  // namespace convfail::test
