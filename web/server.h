// `convfail serve`: the web workbench over web/http_server.h (libmicrohttpd). Static assets
// are compiled in (web/assets/, embedded like the schema migrations); the JSON API is
// web/api.h. Each worker thread keeps its own database connection (WAL, busy timeout) for reads;
// label posts go through core's write queue (core/write_queue.h): one writer thread and
// connection, posts that arrive together committed in one transaction (group commit), so
// concurrent raters never wait for each other's transactions nor lose or duplicate a row. A post
// that finds the database locked by another process for longer than `lock_wait_ms`, or that has
// no turn within twice that, is answered 503 with Retry-After (the page retries).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/taxonomy.h"

namespace convfail::web {

struct ServerOptions {
  std::string db_path;
  std::string rules_dir;  // the classifier rules (data/rules): the uncertain queue's features
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port (bound_port() says which)
  bool readonly = false;
  // Required on every request when not empty: header "Authorization: Bearer T", cookie
  // convfail_token=T, or ?token=T on a page URL (which sets the cookie).
  std::string token;
  // A team (labeling/team_members has active members): every request carries a member's own
  // token instead, which alone says who asks; labeling is blind for annotators (web/access.h).
  bool team = false;
  // Host names answered besides the loopback ones (--allow-host), compared without case.
  std::vector<std::string> allowed_hosts;
  std::size_t max_body = 64 * 1024;  // larger request bodies: 413
  // Threads answering requests; open connections do not hold one (event-driven).
  int threads = 8;
  unsigned max_connections = 1000;  // more are refused at accept
  unsigned idle_timeout_s = 10;     // a silent connection is closed
  unsigned head_timeout_s = 10;     // a request head not complete by then is cut
  int lock_wait_ms = 5000;          // a write waits this long for another process's lock: 503
};

// True for "localhost", an IPv4 literal in 127.0.0.0/8 (four decimal parts, as inet_pton reads
// them), "::1" and "[::1]"; nothing else ("127.attacker.example" is a name, not an address).
bool is_loopback_host(const std::string& host);

// Whether a Host header (name or literal, optional ":PORT") names this server: a loopback name
// or literal, or one of `allowed` (exact, without case). What keeps DNS rebinding out.
bool host_allowed(const std::string& host_header, const std::vector<std::string>& allowed);

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
