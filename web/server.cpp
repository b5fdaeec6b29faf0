#include "web/server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <vector>

#include "core/db.h"
#include "core/embedded_files.h"
#include "core/error.h"
#include "core/json_util.h"
#include "core/text.h"
#include "web/api.h"

namespace convfail {
extern const EmbeddedFile kWebAssets[];
extern const std::size_t kWebAssets_count;
}  // namespace convfail

namespace convfail::web {

namespace {

// Pages may load only their own scripts, styles and data; nothing is framed but the report.
const char* const kCsp =
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'";
// The report renderer's XHTML page (no script) in the page's frame: its own inline styles only.
const char* const kReportCsp =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'";

void send_json(httplib::Response& res, const Json& j, int status = 200) {
  res.status = status;
  res.set_content(json_text(j), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message) {
  send_json(res, {{"error", message}, {"status", status}}, status);
}

std::string cookie(const httplib::Request& req, const std::string& name) {
  std::string all = req.get_header_value("Cookie");
  std::size_t at = 0;
  while (at < all.size()) {
    std::size_t end = all.find(';', at);
    if (end == std::string::npos) end = all.size();
    std::string part = trim(all.substr(at, end - at));
    if (starts_with(part, name + "=")) return part.substr(name.size() + 1);
    at = end + 1;
  }
  return "";
}

bool same_secret(const std::string& a, const std::string& b) {  // constant time in b's length
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string content_type_of(const std::string& name) {
  if (ends_with(name, ".html")) return "text/html; charset=utf-8";
  if (ends_with(name, ".js")) return "text/javascript; charset=utf-8";
  if (ends_with(name, ".css")) return "text/css; charset=utf-8";
  if (ends_with(name, ".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

}  // namespace

bool is_loopback_host(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || starts_with(host, "127.");
}

std::string generate_token() {
  std::ifstream in("/dev/urandom", std::ios::binary);
  unsigned char bytes[16];
  if (!in.read(reinterpret_cast<char*>(bytes), sizeof bytes))
    throw UserError("cannot read /dev/urandom for an access token");
  std::string hex;
  char buf[3];
  for (unsigned char b : bytes) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    hex += buf;
  }
  return hex;
}

const char* find_asset(const std::string& name) {
  for (std::size_t i = 0; i < kWebAssets_count; ++i)
    if (name == kWebAssets[i].name) return kWebAssets[i].text;
  return nullptr;
}

struct Server::Impl {
  ServerOptions options;
  Taxonomy taxonomy;
  httplib::Server http;
  // Label posts: group commit. A post queues itself; the first one that finds no writer at work
  // becomes the writer and stores every queued post in one transaction (BEGIN IMMEDIATE, one
  // savepoint each, so a refused post leaves the others), then hands over. One writer at a time
  // in the process; BEGIN IMMEDIATE orders it with other processes.
  struct Pending {
    const std::string* annotator;
    const Json* body;
    Json result;
    int status = 0;  // non-zero: refused with this status and message
    std::string error;
    bool done = false;
    std::condition_variable wake;  // done, or its turn to write
  };
  std::mutex queue_mutex;
  std::vector<Pending*> queue;
  bool writing = false;

  // Writes go first: a read request waits while label posts are queued or being written, so
  // the one writer is not starved of the CPU by the readers under load (posts are short).
  std::condition_variable writes_done;
  struct ReadSlot {
    explicit ReadSlot(Impl& s) {
      std::unique_lock<std::mutex> lock(s.queue_mutex);
      s.writes_done.wait_for(lock, std::chrono::milliseconds(50),
                             [&] { return !s.writing && s.queue.empty(); });
    }
  };

  void write_batch(Db& db, const std::vector<Pending*>& batch) {
    try {
      Transaction tx(db);
      for (Pending* p : batch) {
        db.exec("SAVEPOINT post");
        try {
          p->result = append_label(db, taxonomy, *p->annotator, *p->body);
          db.exec("RELEASE post");
          continue;
        } catch (const HttpError& e) {
          p->status = e.status();
          p->error = e.what();
        } catch (const UserError& e) {
          p->status = 400;
          p->error = e.what();
        } catch (const UsageError& e) {
          p->status = 400;
          p->error = e.what();
        } catch (const Json::exception& e) {
          p->status = 400;
          p->error = std::string("bad JSON value: ") + e.what();
        } catch (const std::exception& e) {
          p->status = 500;
          p->error = std::string("internal error: ") + e.what();
        }
        db.exec("ROLLBACK TO post");
        db.exec("RELEASE post");
      }
      tx.commit();
    } catch (const std::exception& e) {  // the batch failed as a whole: nothing was written
      for (Pending* p : batch) {
        p->status = 500;
        p->error = std::string("could not store the labels: ") + e.what();
      }
    }
  }

  Json post_label_batched(Db& db, const std::string& annotator, const Json& body) {
    Pending me{&annotator, &body, {}, 0, {}, false, {}};
    std::unique_lock<std::mutex> lock(queue_mutex);
    queue.push_back(&me);
    // Wait until written, or until no one writes: then write the queue (own post first in it).
    me.wake.wait(lock, [&] { return me.done || !writing; });
    if (!me.done) {
      writing = true;
      std::vector<Pending*> batch;
      batch.swap(queue);
      lock.unlock();
      write_batch(db, batch);
      lock.lock();
      writing = false;
      for (Pending* p : batch) {
        p->done = true;
        if (p != &me) p->wake.notify_one();
      }
      // Whoever queued meanwhile writes next (one wake-up, not a herd); else the readers go on.
      if (!queue.empty())
        queue.front()->wake.notify_one();
      else
        writes_done.notify_all();
    }
    if (me.status) throw HttpError(me.status, me.error);
    return me.result;
  }

  Impl(ServerOptions o, Taxonomy t) : options(std::move(o)), taxonomy(std::move(t)) {}

  // One connection per worker thread, opened on its first request and kept (opening one costs
  // more than most requests: pragmas, then parsing the schema).
  Db& open_db() {
    struct Cached {
      const Impl* owner = nullptr;
      std::unique_ptr<Db> db;
    };
    thread_local Cached cached;
    if (cached.owner != this || !cached.db) {
      cached.db.reset();
      cached.db = std::make_unique<Db>(
          options.db_path, options.readonly ? OpenMode::kReadOnly : OpenMode::kReadWrite);
      cached.owner = this;
    }
    return *cached.db;
  }

  std::string annotator_of(const httplib::Request& req) {
    std::string name = req.get_header_value("X-Convfail-Annotator");
    if (name.empty()) name = cookie(req, "convfail_annotator");
    return name;
  }

  std::string required_annotator(const httplib::Request& req) {
    std::string name = annotator_of(req);
    if (name.empty())
      throw HttpError(401, "log in first: choose an annotator name (POST /api/login)");
    return checked_annotator(name);
  }

  // Writes: POST only, JSON only, from this origin (browsers say so in Sec-Fetch-Site and Origin).
  void check_write(const httplib::Request& req) {
    if (options.readonly) throw HttpError(403, "the server is read-only (--readonly)");
    std::string site = req.get_header_value("Sec-Fetch-Site");
    if (!site.empty() && site != "same-origin" && site != "none")
      throw HttpError(403, "cross-site request refused (Sec-Fetch-Site: " + site + ")");
    std::string origin = req.get_header_value("Origin");
    if (!origin.empty() && origin != "http://" + req.get_header_value("Host"))
      throw HttpError(403, "cross-origin request refused (Origin does not match Host)");
    if (!starts_with(lower(req.get_header_value("Content-Type")), "application/json"))
      throw HttpError(415, "Content-Type must be application/json");
  }

  Json parse_body(const httplib::Request& req) {
    Json body = Json::parse(req.body, nullptr, false);
    if (body.is_discarded()) throw HttpError(400, "malformed JSON body");
    if (!body.is_object()) throw HttpError(400, "body: expected a JSON object");
    return body;
  }

  // Runs a handler; every failure becomes a JSON error line with a 4xx (or 500) status.
  void guard(httplib::Response& res, const std::function<void()>& f) {
    try {
      f();
    } catch (const HttpError& e) {
      send_error(res, e.status(), e.what());
    } catch (const UsageError& e) {
      send_error(res, 400, e.what());
    } catch (const UserError& e) {
      send_error(res, 400, e.what());
    } catch (const Json::exception& e) {
      send_error(res, 400, std::string("bad JSON value: ") + e.what());
    } catch (const std::exception& e) {
      send_error(res, 500, std::string("internal error: ") + e.what());
    } catch (...) {
      send_error(res, 500, "internal error");
    }
  }

  void setup() {
    int threads = options.threads;
    http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    http.set_payload_max_length(options.max_body);
    http.set_read_timeout(10, 0);
    http.set_write_timeout(10, 0);
    http.set_keep_alive_timeout(5);
    http.set_keep_alive_max_count(1000);
    http.set_tcp_nodelay(true);  // headers and body go out in two writes: no Nagle delay

    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      res.set_header("Content-Security-Policy", kCsp);
      res.set_header("X-Content-Type-Options", "nosniff");
      res.set_header("Referrer-Policy", "no-referrer");
      res.set_header("Cache-Control", "no-store");
      res.set_header("X-Frame-Options", "SAMEORIGIN");
      if (options.token.empty()) {
        // Without a token the server is on loopback: refuse other Host names, so a web page
        // whose name an attacker re-points at 127.0.0.1 (DNS rebinding) reads nothing.
        std::string host = req.get_header_value("Host");
        std::string name = host.substr(0, host.rfind(':') == std::string::npos || host.back() == ']'
                                              ? host.size()
                                              : host.rfind(':'));
        if (!host.empty() && !is_loopback_host(name)) {
          send_error(res, 403, "Host " + quoted_excerpt(host) + " refused: open http://127.0.0.1");
          return httplib::Server::HandlerResponse::Handled;
        }
        return httplib::Server::HandlerResponse::Unhandled;
      }
      std::string auth = req.get_header_value("Authorization");
      std::string given =
          starts_with(auth, "Bearer ") ? auth.substr(7) : cookie(req, "convfail_token");
      if (!given.empty() && same_secret(given, options.token))
        return httplib::Server::HandlerResponse::Unhandled;
      if (req.method == "GET" && req.has_param("token") &&
          same_secret(req.get_param_value("token"), options.token)) {
        // The link printed at start: remember the token in a cookie, then drop it from the URL.
        res.set_header("Set-Cookie",
                       "convfail_token=" + options.token + "; Path=/; HttpOnly; SameSite=Strict");
        res.set_redirect(req.path.empty() ? "/" : req.path, 303);
        return httplib::Server::HandlerResponse::Handled;
      }
      send_error(res, 403, "access token required (open the link `convfail serve` printed)");
      return httplib::Server::HandlerResponse::Handled;
    });
    // Statuses httplib sets itself (413 payload too large, 404 no route, 400 bad request line)
    // get the same JSON error line as ours.
    http.set_error_handler(
        httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
          if (res.body.empty()) {
            std::string message = res.status == 413   ? "request body too large"
                                  : res.status == 404 ? "not found"
                                  : res.status == 405 ? "method not allowed"
                                                      : "bad request";
            send_error(res, res.status, message);
          }
          return httplib::Server::HandlerResponse::Handled;
        }));
    http.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
          try {
            if (ep) std::rethrow_exception(ep);
            send_error(res, 500, "internal error");
          } catch (const std::exception& e) {
            send_error(res, 500, std::string("internal error: ") + e.what());
          } catch (...) {
            send_error(res, 500, "internal error");
          }
        });

    auto asset = [this](const std::string& name, httplib::Response& res) {
      guard(res, [&] {
        if (name.find("..") != std::string::npos || name.find('/') != std::string::npos ||
            name.find('\\') != std::string::npos || name.find('\0') != std::string::npos)
          throw HttpError(400, "bad asset path");
        const char* text = find_asset(name);
        if (!text) throw HttpError(404, "no asset " + quoted_excerpt(name));
        res.set_header("Cache-Control", "no-cache");
        res.set_content(text, content_type_of(name));
      });
    };
    http.Get("/", [asset](const httplib::Request&, httplib::Response& res) {
      asset("index.html", res);
    });
    http.Get(R"(/assets/(.*))", [asset](const httplib::Request& req, httplib::Response& res) {
      asset(req.matches[1], res);
    });

    http.Get("/api/session", [this](const httplib::Request& req, httplib::Response& res) {
      guard(res, [&] {
        Db& db = open_db();
        std::string name = annotator_of(req);
        if (!name.empty()) name = checked_annotator(name);
        send_json(res, session_json(db, taxonomy, name, options.readonly));
      });
    });
    http.Post("/api/login", [this](const httplib::Request& req, httplib::Response& res) {
      guard(res, [&] {
        if (!options.readonly) check_write(req);
        Json body = parse_body(req);
        auto name = opt_string(body, "annotator");
        if (!name) throw HttpError(400, "body: \"annotator\" (string) needed");
        std::string annotator = checked_annotator(trim(*name));
        res.set_header("Set-Cookie",
                       "convfail_annotator=" + annotator + "; Path=/; HttpOnly; SameSite=Strict");
        send_json(res, {{"annotator", annotator}});
      });
    });
    http.Post("/api/logout", [](const httplib::Request&, httplib::Response& res) {
      res.set_header("Set-Cookie", "convfail_annotator=; Path=/; Max-Age=0; SameSite=Strict");
      send_json(res, {{"annotator", nullptr}});
    });
    http.Get("/api/issues", [this](const httplib::Request& req, httplib::Response& res) {
      guard(res, [&] {
        ReadSlot slot(*this);
        Db& db = open_db();
        send_json(res, issues_json(db, taxonomy, req.params));
      });
    });
    http.Get(R"(/api/issues/([^/]+)/([^/]+)/([^/]+))", [this](const httplib::Request& req,
                                                              httplib::Response& res) {
      guard(res, [&] {
        ReadSlot slot(*this);
        Db& db = open_db();
        send_json(res, issue_json(db, taxonomy,
                                  std::string(req.matches[1]) + "/" + std::string(req.matches[2]),
                                  req.matches[3]));
      });
    });
    http.Get("/api/labels", [this](const httplib::Request& req, httplib::Response& res) {
      guard(res, [&] {
        Db& db = open_db();
        send_json(res, label_history_json(db, req.params));
      });
    });
    http.Post("/api/labels", [this](const httplib::Request& req, httplib::Response& res) {
      guard(res, [&] {
        check_write(req);
        std::string annotator = required_annotator(req);
        Json body = parse_body(req);
        Db& db = open_db();
        send_json(res, post_label_batched(db, annotator, body), 201);
      });
    });
    http.Get("/api/queue", [this](const httplib::Request& req, httplib::Response& res) {
      guard(res, [&] {
        std::string annotator = required_annotator(req);
        Db& db = open_db();
        send_json(res, queue_json(db, annotator, req.params));
      });
    });
    http.Get("/api/agreement", [this](const httplib::Request& req, httplib::Response& res) {
      guard(res, [&] {
        Db& db = open_db();
        send_json(res, agreement_json(db, req.params));
      });
    });
    http.Get("/api/report", [this](const httplib::Request& req, httplib::Response& res) {
      guard(res, [&] {
        Db& db = open_db();
        ReportText r = report_text(db, taxonomy, req.params);
        if (r.extension == "html") {
          res.headers.erase("Content-Security-Policy");
          res.set_header("Content-Security-Policy", kReportCsp);
        }
        if (req.get_param_value("download") == "1")
          res.set_header("Content-Disposition",
                         "attachment; filename=\"convfail-report." + r.extension + "\"");
        res.set_content(r.text, r.content_type);
      });
    });
    // Anything else under /api: a JSON 404 (and 405 for a known path with the wrong method).
    auto unknown = [](const httplib::Request& req, httplib::Response& res) {
      static const char* const kPaths[] = {"/api/session",   "/api/login",  "/api/logout",
                                           "/api/issues",    "/api/labels", "/api/queue",
                                           "/api/agreement", "/api/report"};
      if (starts_with(req.path, "/api/issues/"))
        return req.method == "GET"
                   ? send_error(res, 400, "expected /api/issues/OWNER/REPO/NUMBER")
                   : send_error(res, 405, "method " + req.method + " not allowed on " + req.path);
      for (const char* p : kPaths)
        if (req.path == p)
          return send_error(res, 405, "method " + req.method + " not allowed on " + req.path);
      send_error(res, 404, "not found");
    };
    http.Get(".*", unknown);
    http.Post(".*", unknown);
    http.Put(".*", unknown);
    http.Delete(".*", unknown);
    http.Patch(".*", unknown);
  }
};

Server::Server(ServerOptions options, Taxonomy taxonomy)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(taxonomy))) {
  impl_->setup();
}

Server::~Server() = default;

int Server::bind() {
  const ServerOptions& o = impl_->options;
  // Debian's cpp-httplib is a compiled library that listens with a backlog of 5: connections
  // beyond that, when many browsers or clients connect at once, are dropped and fail after a
  // second. Keep the listening socket (the options hook sees it before bind) and listen again
  // with a longer queue; Linux takes the new backlog for a socket already listening.
  int listening = -1;
  impl_->http.set_socket_options([&listening](socket_t sock) {
    httplib::default_socket_options(sock);
    listening = sock;
  });
  if (o.port == 0) {
    port_ = impl_->http.bind_to_any_port(o.host);
    if (port_ < 0) throw UserError("cannot listen on " + o.host);
  } else {
    if (!impl_->http.bind_to_port(o.host, o.port))
      throw UserError("cannot listen on " + o.host + ":" + std::to_string(o.port) +
                      " (in use, or not an address of this machine)");
    port_ = o.port;
  }
  if (listening >= 0) ::listen(listening, SOMAXCONN);
  impl_->http.set_socket_options(httplib::default_socket_options);
  return port_;
}

void Server::listen() {
  impl_->http.listen_after_bind();
}

void Server::stop() {
  impl_->http.stop();
}

}  // namespace convfail::web
