// A small libcurl HTTP layer: one request at a time over a kept-alive easy handle (Client), or
// many in parallel over the multi interface (MultiClient). Both reuse connections between calls.
// Transport failures are reported in Response::error, never thrown.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace convfail::http {

struct Request {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;  // name, value
  long timeout_ms = 30000;                                   // whole transfer
  long connect_timeout_ms = 10000;
};

struct Response {
  long status = 0;                             // 0 when the transfer failed
  std::map<std::string, std::string> headers;  // names lower-cased; the last value wins
  std::string body;
  std::string error;         // curl's message when the transfer failed (timeout, reset, short body)
  long new_connections = 0;  // connections opened for this transfer (0: an open one was reused)
  bool transport_ok() const { return error.empty(); }
  // A header by case-insensitive name.
  std::optional<std::string> header(const std::string& name) const;
};

// Sequential requests over one easy handle: the connection stays open between calls.
class Client {
 public:
  Client();
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  Response perform(const Request& request);

 private:
  void* easy_;
};

// Parallel requests over the multi interface: at most `max_parallel` transfers (and connections)
// at once; connections are cached by the multi handle and reused by later calls.
class MultiClient {
 public:
  explicit MultiClient(int max_parallel);
  ~MultiClient();
  MultiClient(const MultiClient&) = delete;
  MultiClient& operator=(const MultiClient&) = delete;
  // Runs all requests; responses in the order of `requests`.
  std::vector<Response> perform_all(const std::vector<Request>& requests);
  int max_parallel() const { return max_parallel_; }

 private:
  int max_parallel_;
  void* multi_;
  std::vector<void*> idle_;  // easy handles kept for reuse
};

}  // namespace convfail::http
