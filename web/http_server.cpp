#include "web/http_server.h"

#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "core/error.h"
#include "core/text.h"

namespace convfail::web {

namespace {

using Clock = std::chrono::steady_clock;

// One request while its head and body arrive, then while a worker answers it (MHD's
// per-request pointer).
struct RequestState {
  HttpRequest request;
  bool too_large = false;
  bool dispatched = false;  // handed to a worker (the connection is suspended meanwhile)
  bool answered = false;    // the worker filled `reply`, then resumed the connection
  HttpReply reply;
};

MHD_Result collect(void* cls, MHD_ValueKind, const char* key, const char* value) {
  auto* pair = static_cast<std::pair<HttpRequest*, MHD_ValueKind>*>(cls);
  if (!key) return MHD_YES;
  if (pair->second == MHD_HEADER_KIND) {
    std::string& slot = pair->first->headers[lower(key)];
    slot += (slot.empty() ? "" : ", ") + std::string(value ? value : "");
  } else {
    pair->first->params.emplace(key, value ? value : "");
  }
  return MHD_YES;
}

}  // namespace

std::string percent_decoded(std::string text) {
  text.resize(MHD_http_unescape(text.data()));
  return text;
}

std::string HttpRequest::header(const std::string& name) const {
  auto it = headers.find(lower(name));
  return it == headers.end() ? "" : it->second;
}

std::string HttpRequest::param(const std::string& name) const {
  auto it = params.find(name);
  return it == params.end() ? "" : it->second;
}

void HttpReply::set_header(const std::string& name, const std::string& value) {
  erase_header(name);
  headers.emplace_back(name, value);
}

void HttpReply::erase_header(const std::string& name) {
  std::string key = lower(name);
  for (auto it = headers.begin(); it != headers.end();)
    it = lower(it->first) == key ? headers.erase(it) : it + 1;
}

std::string HttpReply::header(const std::string& name) const {
  std::string key = lower(name);
  for (const auto& [k, v] : headers)
    if (lower(k) == key) return v;
  return "";
}

void HttpReply::set_content(std::string text, const std::string& content_type) {
  body = std::move(text);
  set_header("Content-Type", content_type);
}

struct HttpServer::Impl {
  HttpServerOptions options;
  Handler handler;
  ErrorHandler on_error;
  int listen_fd = -1;
  MHD_Daemon* daemon = nullptr;

  std::mutex stop_mutex;
  std::condition_variable stop_wake;
  bool stopping = false;

  // Open connections and when their current request head began: the sweeper cuts (shutdown)
  // the ones whose head is late. An entry leaves before MHD closes the socket (NOTIFY_CLOSED),
  // under the mutex, so a cut never reaches a reused descriptor.
  struct Conn {
    int fd = -1;
    Clock::time_point head_started;
    bool in_request = false;  // head complete, request being handled or answered
    bool cut = false;
  };
  std::mutex conns_mutex;
  std::unordered_map<MHD_Connection*, Conn> conns;

  // Handlers run on `options.threads` workers, never on MHD's event threads: a slow page holds
  // a worker, while every other connection's head is still read at once (and so never taken
  // for a slow client by the sweeper) and waits its turn suspended. `closed`: stopping, no new
  // job is taken (the request is answered 503 at once) and the workers leave once the queue is
  // empty, so no connection stays suspended when the daemon stops.
  struct Job {
    MHD_Connection* connection;
    RequestState* state;
    bool heavy;
  };
  std::mutex jobs_mutex;
  std::condition_variable jobs_wake;
  std::deque<Job> jobs;
  bool jobs_closed = false;
  std::vector<std::thread> workers;
  int heavy_running = 0;  // workers on a heavy path (options.heavy_paths)

  bool is_heavy(const HttpRequest& req) const {
    for (const std::string& prefix : options.heavy_paths)
      if (starts_with(req.path, prefix)) return true;
    return false;
  }

  // The oldest job a worker may take: heavy ones only while fewer than threads - 1 workers are
  // on one, so a worker is always left for the light requests. jobs.end() when none.
  std::deque<Job>::iterator next_job() {
    bool heavy_ok = heavy_running < std::max(1, options.threads - 1);
    for (auto it = jobs.begin(); it != jobs.end(); ++it)
      if (heavy_ok || !it->heavy) return it;
    return jobs.end();
  }

  void work() {
    for (;;) {
      Job job{};
      {
        std::unique_lock<std::mutex> lock(jobs_mutex);
        jobs_wake.wait(lock, [&] { return jobs_closed || next_job() != jobs.end(); });
        auto it = next_job();
        if (it == jobs.end()) return;  // closed, and nothing left this worker may take
        job = *it;
        jobs.erase(it);
        if (job.heavy) ++heavy_running;
      }
      try {
        handler(job.state->request, job.state->reply);
      } catch (const std::exception& e) {
        job.state->reply = HttpReply{};
        job.state->reply.status = 500;
        on_error(500, std::string("internal error: ") + e.what(), job.state->reply);
      }
      job.state->answered = true;
      MHD_resume_connection(job.connection);  // MHD calls on_request again: the reply goes out
      if (job.heavy) {
        std::lock_guard<std::mutex> lock(jobs_mutex);
        --heavy_running;
        jobs_wake.notify_all();  // a heavy job waiting for a free lane may go
      }
    }
  }

  // Queues the request for a worker, the connection suspended; false when stopping.
  bool dispatch(MHD_Connection* connection, RequestState* state) {
    std::lock_guard<std::mutex> lock(jobs_mutex);
    if (jobs_closed) return false;
    state->dispatched = true;
    MHD_suspend_connection(connection);
    jobs.push_back({connection, state, is_heavy(state->request)});
    jobs_wake.notify_all();  // the first idle worker may not be allowed to take it
    return true;
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(jobs_mutex);
      jobs_closed = true;
    }
    jobs_wake.notify_all();
    for (std::thread& t : workers) t.join();
    workers.clear();
  }

  void reply(MHD_Connection* connection, const HttpReply& r) {
    MHD_Response* response = MHD_create_response_from_buffer(
        r.body.size(), const_cast<char*>(r.body.data()), MHD_RESPMEM_MUST_COPY);
    for (const auto& [name, value] : r.headers)
      MHD_add_response_header(response, name.c_str(), value.c_str());
    MHD_queue_response(connection, static_cast<unsigned>(r.status), response);
    MHD_destroy_response(response);
  }

  void refuse(MHD_Connection* connection, int status, const std::string& message) {
    HttpReply r;
    r.status = status;
    on_error(status, message, r);
    reply(connection, r);
  }

  static MHD_Result on_request(void* cls, MHD_Connection* connection, const char* url,
                               const char* method, const char*, const char* upload_data,
                               size_t* upload_data_size, void** con_cls) {
    auto* self = static_cast<Impl*>(cls);
    auto* state = static_cast<RequestState*>(*con_cls);
    if (!state) {  // the head is complete: collect it
      {
        std::lock_guard<std::mutex> lock(self->conns_mutex);
        auto it = self->conns.find(connection);
        if (it != self->conns.end()) it->second.in_request = true;
      }
      state = new RequestState;
      *con_cls = state;
      state->request.method = method;
      state->request.path = url;
      std::pair<HttpRequest*, MHD_ValueKind> h{&state->request, MHD_HEADER_KIND};
      MHD_get_connection_values(connection, MHD_HEADER_KIND, collect, &h);
      std::pair<HttpRequest*, MHD_ValueKind> g{&state->request, MHD_GET_ARGUMENT_KIND};
      MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, collect, &g);
      std::string length = state->request.header("Content-Length");
      if (!length.empty() &&
          (length.size() > 12 || std::strtoull(length.c_str(), nullptr, 10) >
                                     static_cast<unsigned long long>(self->options.max_body))) {
        self->refuse(connection, 413, "request body too large");
        return MHD_YES;
      }
      return MHD_YES;  // called again with the body (if any), then once more with none
    }
    if (*upload_data_size) {
      if (!state->too_large) {
        if (state->request.body.size() + *upload_data_size > self->options.max_body) {
          state->too_large = true;
          state->request.body.clear();
        } else {
          state->request.body.append(upload_data, *upload_data_size);
        }
      }
      *upload_data_size = 0;
      return MHD_YES;
    }
    if (state->too_large) {
      self->refuse(connection, 413, "request body too large");
      return MHD_YES;
    }
    if (state->answered) {
      self->reply(connection, state->reply);
    } else if (!state->dispatched && !self->dispatch(connection, state)) {
      self->refuse(connection, 503, "the server is stopping");
    }
    return MHD_YES;
  }

  static void on_completed(void* cls, MHD_Connection* connection, void** con_cls,
                           MHD_RequestTerminationCode) {
    auto* self = static_cast<Impl*>(cls);
    delete static_cast<RequestState*>(*con_cls);
    *con_cls = nullptr;
    std::lock_guard<std::mutex> lock(self->conns_mutex);
    auto it = self->conns.find(connection);
    if (it != self->conns.end()) {  // keep-alive: the next request's head starts now
      it->second.in_request = false;
      it->second.head_started = Clock::now();
    }
  }

  static void on_connection(void* cls, MHD_Connection* connection, void**,
                            MHD_ConnectionNotificationCode code) {
    auto* self = static_cast<Impl*>(cls);
    std::lock_guard<std::mutex> lock(self->conns_mutex);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      const MHD_ConnectionInfo* info =
          MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
      Conn c;
      c.fd = info ? info->connect_fd : -1;
      c.head_started = Clock::now();
      self->conns[connection] = c;
    } else {
      self->conns.erase(connection);
    }
  }

  // Every half second: cut the connections whose request head is later than head_timeout.
  void sweep_until_stopped() {
    std::unique_lock<std::mutex> stop_lock(stop_mutex);
    while (
        !stop_wake.wait_for(stop_lock, std::chrono::milliseconds(500), [&] { return stopping; })) {
      auto deadline = Clock::now() - std::chrono::seconds(options.head_timeout_s);
      std::lock_guard<std::mutex> lock(conns_mutex);
      for (auto& [connection, c] : conns) {
        if (!c.in_request && !c.cut && c.fd >= 0 && c.head_started < deadline) {
          ::shutdown(c.fd, SHUT_RDWR);
          c.cut = true;
        }
      }
    }
  }
};

HttpServer::HttpServer(HttpServerOptions options, Handler handler, ErrorHandler on_error)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->handler = std::move(handler);
  impl_->on_error = std::move(on_error);
}

HttpServer::~HttpServer() {
  stop();
  impl_->stop_workers();
  if (impl_->daemon) MHD_stop_daemon(impl_->daemon);
  if (impl_->listen_fd >= 0) ::close(impl_->listen_fd);
}

int HttpServer::bind() {
  const HttpServerOptions& o = impl_->options;
  std::string where = o.host + ":" + std::to_string(o.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (getaddrinfo(o.host.c_str(), std::to_string(o.port).c_str(), &hints, &found) != 0 || !found)
    throw UserError("cannot listen on " + where + ": not an address of this machine");
  int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int saved = errno;
  if (fd < 0) {
    freeaddrinfo(found);
    throw UserError("cannot listen on " + where + ": " + std::strerror(saved));
  }
  // SO_REUSEADDR: restart at once after a stop. Never SO_REUSEPORT: two servers would share
  // the port and requests would alternate between their databases.
  int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  int rc = ::bind(fd, found->ai_addr, found->ai_addrlen);
  saved = errno;
  freeaddrinfo(found);
  if (rc != 0 || ::listen(fd, SOMAXCONN) != 0) {
    if (rc == 0) saved = errno;
    ::close(fd);
    if (saved == EADDRINUSE) throw UserError("port " + std::to_string(o.port) + " is in use");
    throw UserError("cannot listen on " + where + ": " + std::strerror(saved));
  }
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  impl_->listen_fd = fd;
  return ntohs(addr.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                                          : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

void HttpServer::listen() {
  Impl& s = *impl_;
  if (s.listen_fd < 0) throw UserError("HttpServer::listen before bind");
  {
    std::lock_guard<std::mutex> lock(s.stop_mutex);
    if (s.stopping) return;
  }
  for (int i = 0; i < s.options.threads; ++i) s.workers.emplace_back([&s] { s.work(); });
  // The event threads only read heads and bodies and write replies: two are plenty.
  unsigned event_threads = s.options.threads > 1 ? 2 : 1;
  s.daemon = MHD_start_daemon(
      MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME, 0, nullptr, nullptr,
      &Impl::on_request, &s, MHD_OPTION_LISTEN_SOCKET, static_cast<MHD_socket>(s.listen_fd),
      MHD_OPTION_THREAD_POOL_SIZE, event_threads, MHD_OPTION_CONNECTION_LIMIT,
      s.options.max_connections, MHD_OPTION_CONNECTION_TIMEOUT, s.options.idle_timeout_s,
      MHD_OPTION_NOTIFY_COMPLETED, &Impl::on_completed, &s, MHD_OPTION_NOTIFY_CONNECTION,
      &Impl::on_connection, &s, MHD_OPTION_END);
  if (!s.daemon) {
    s.stop_workers();
    throw UserError("cannot start the HTTP server (libmicrohttpd)");
  }
  s.listen_fd = -1;  // the daemon owns (and closes) it now
  s.sweep_until_stopped();
  s.stop_workers();  // every queued request answered and its connection resumed
  MHD_stop_daemon(s.daemon);
  s.daemon = nullptr;
}

void HttpServer::stop() {
  std::lock_guard<std::mutex> lock(impl_->stop_mutex);
  impl_->stopping = true;
  impl_->stop_wake.notify_all();
}

}  // namespace convfail::web
