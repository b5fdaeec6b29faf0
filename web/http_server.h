// The HTTP transport of `convfail serve`: libmicrohttpd (event-driven, a small pool of threads
// whatever the number of open connections) behind a request/reply pair and one handler.
// Slow clients cost a socket, not a thread: idle connections close after `idle_timeout`, a
// request head not complete after `head_timeout` is cut, and at most `max_connections` are open.
// Handlers run on `threads` workers, apart from the event threads that read requests: a complete
// request waits its turn with its connection suspended, never cut as a slow client.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace convfail::web {

struct HttpRequest {
  std::string method;                              // "GET", "POST", ...
  std::string path;                                // percent-decoded, without the query
  std::multimap<std::string, std::string> params;  // query parameters, decoded
  // The route's "{name}" segments of the path (web/routes.h), set by the server's route table.
  std::map<std::string, std::string> path_params;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
  // The header's value, "" when absent (name in any case).
  std::string header(const std::string& name) const;
  bool has_param(const std::string& name) const { return params.count(name) > 0; }
  std::string param(const std::string& name) const;  // the first value, "" when absent
};

// `text` with its %HH escapes decoded (libmicrohttpd's unescape; a cookie value set with
// core's url_encode).
std::string percent_decoded(std::string text);

struct HttpReply {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // Replaces every header of that name (any case) by this one.
  void set_header(const std::string& name, const std::string& value);
  void erase_header(const std::string& name);
  std::string header(const std::string& name) const;
  void set_content(std::string text, const std::string& content_type);
};

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port
  int threads = 4;
  std::size_t max_body = 64 * 1024;  // larger: 413 (the body is read and dropped)
  unsigned max_connections = 1000;   // more are refused at accept
  unsigned idle_timeout_s = 10;      // a connection silent this long is closed
  unsigned head_timeout_s = 10;      // a request head still incomplete this long: cut
  // Paths (prefixes) of slow pages: at most threads - 1 workers answer them at once, so one is
  // always free for the light requests (a session, a label) however many slow ones queue.
  std::vector<std::string> heavy_paths;
};

class HttpServer {
 public:
  using Handler = std::function<void(const HttpRequest&, HttpReply&)>;
  // `on_error(status, message, reply)` fills the reply of a request refused before the handler
  // (413 body too large).
  using ErrorHandler = std::function<void(int, const std::string&, HttpReply&)>;
  HttpServer(HttpServerOptions options, Handler handler, ErrorHandler on_error);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Opens the listening socket (SO_REUSEADDR, never SO_REUSEPORT: a second server on the same
  // port fails here with "port P is in use"); returns the port. UserError when it cannot.
  int bind();
  // Serves until stop() (from another thread).
  void listen();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace convfail::web
