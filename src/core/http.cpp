#include "core/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <mutex>
#include <stdexcept>

#include "core/text.h"

namespace convfail::http {
namespace {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Per-transfer state: the response being filled and the request's header list.
struct Transfer {
  Response response;
  curl_slist* headers = nullptr;
  std::size_t index = 0;
  ~Transfer() { curl_slist_free_all(headers); }
};

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  static_cast<Transfer*>(user)->response.body.append(data, size * n);
  return size * n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) {
    t->response.headers.clear();  // a new response (after a redirect or 100-continue)
  } else if (auto colon = line.find(':'); colon != std::string::npos) {
    t->response.headers[lower(trim(line.substr(0, colon)))] = trim(line.substr(colon + 1));
  }
  return size * n;
}

void prepare(CURL* easy, const Request& req, Transfer* t) {
  curl_easy_reset(easy);
  curl_easy_setopt(easy, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, t);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, t);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, req.timeout_ms);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, req.connect_timeout_ms);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");  // any encoding curl can decode
  curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(easy, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_PRIVATE, t);
  for (const auto& [name, value] : req.headers) {
    t->headers = curl_slist_append(t->headers, (name + ": " + value).c_str());
  }
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, t->headers);
}

void finish(CURL* easy, CURLcode code, Transfer* t) {
  curl_easy_getinfo(easy, CURLINFO_NUM_CONNECTS, &t->response.new_connections);
  if (code != CURLE_OK) {
    t->response.status = 0;
    t->response.error = curl_easy_strerror(code);
    return;
  }
  long status = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  t->response.status = status;
}

}  // namespace

std::optional<std::string> Response::header(const std::string& name) const {
  auto it = headers.find(lower(name));
  if (it == headers.end()) return std::nullopt;
  return it->second;
}

Client::Client() {
  global_init();
  easy_ = curl_easy_init();
  if (!easy_) throw std::runtime_error("curl_easy_init failed");
}

Client::~Client() {
  curl_easy_cleanup(static_cast<CURL*>(easy_));
}

Response Client::perform(const Request& request) {
  auto* easy = static_cast<CURL*>(easy_);
  Transfer t;
  prepare(easy, request, &t);
  finish(easy, curl_easy_perform(easy), &t);
  return std::move(t.response);
}

MultiClient::MultiClient(int max_parallel) : max_parallel_(std::max(1, max_parallel)) {
  global_init();
  multi_ = curl_multi_init();
  if (!multi_) throw std::runtime_error("curl_multi_init failed");
  curl_multi_setopt(multi_, CURLMOPT_MAX_TOTAL_CONNECTIONS, static_cast<long>(max_parallel_));
  curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(max_parallel_));
  curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(max_parallel_));
}

MultiClient::~MultiClient() {
  for (void* e : idle_) curl_easy_cleanup(static_cast<CURL*>(e));
  curl_multi_cleanup(static_cast<CURLM*>(multi_));
}

std::vector<Response> MultiClient::perform_all(const std::vector<Request>& requests) {
  auto* multi = static_cast<CURLM*>(multi_);
  std::vector<Response> out(requests.size());
  std::size_t next = 0;
  int running = 0;
  auto start = [&](std::size_t i) {
    CURL* easy;
    if (!idle_.empty()) {
      easy = static_cast<CURL*>(idle_.back());
      idle_.pop_back();
    } else {
      easy = curl_easy_init();
      if (!easy) throw std::runtime_error("curl_easy_init failed");
    }
    auto* t = new Transfer;
    t->index = i;
    prepare(easy, requests[i], t);
    curl_multi_add_handle(multi, easy);
    ++running;
  };
  while (next < requests.size() && running < max_parallel_) start(next++);
  while (running > 0) {
    int still = 0;
    curl_multi_perform(multi, &still);
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
      if (msg->msg != CURLMSG_DONE) continue;
      CURL* easy = msg->easy_handle;
      CURLcode code = msg->data.result;
      Transfer* t = nullptr;
      curl_easy_getinfo(easy, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
      finish(easy, code, t);
      out[t->index] = std::move(t->response);
      curl_multi_remove_handle(multi, easy);
      delete t;
      idle_.push_back(easy);
      --running;
      if (next < requests.size()) start(next++);
    }
    if (running > 0) curl_multi_poll(multi, nullptr, 0, 100, nullptr);
  }
  return out;
}

}  // namespace convfail::http
