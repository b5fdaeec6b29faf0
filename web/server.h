// `convfail serve`: the HTTP server (cpp-httplib) of the web workbench. Static assets are
// compiled in (web/assets/, embedded like the schema migrations); the JSON API is web/api.h.
// Each worker thread keeps its own database connection (WAL, busy timeout); label posts are
// written by one thread at a time, in batches (group commit), so concurrent raters never lose or
// duplicate a row.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "core/taxonomy.h"

namespace convfail::web {

struct ServerOptions {
  std::string db_path;
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port (bound_port() says which)
  bool readonly = false;
  // Required on every request when not empty: header "Authorization: Bearer T", cookie
  // convfail_token=T, or ?token=T on a page URL (which sets the cookie).
  std::string token;
  std::size_t max_body = 64 * 1024;  // larger request bodies: 413
  // Each keep-alive connection holds a worker while it is open (a browser opens up to six).
  int threads = 32;
};

// True for 127.0.0.0/8, ::1 and "localhost".
bool is_loopback_host(const std::string& host);

// A fresh random access token (32 hex digits from /dev/urandom).
std::string generate_token();

// The asset of that name ("index.html", "app.js", ...), nullptr when there is none.
const char* find_asset(const std::string& name);

class Server {
 public:
  Server(ServerOptions options, Taxonomy taxonomy);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds (UserError when the address cannot be bound); returns the port.
  int bind();
  int bound_port() const { return port_; }
  // Serves until stop() (from another thread or a signal handler's thread).
  void listen();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace convfail::web
