#include "core/http.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string_view>

#include "core/text.h"

namespace convfail::http {
namespace {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Per-transfer state: the response being filled and the request's header list.
struct Transfer {
  const Request* request = nullptr;
  Response response;
  curl_slist* headers = nullptr;
  std::size_t index = 0;
  std::uint64_t received = 0;   // body bytes so far
  bool too_large = false;       // the body cap stopped it
  bool refused = false;         // Request::on_body stopped it
  std::string private_address;  // "127.0.0.1 (loopback)": refuse_private_addresses stopped it
  char errbuf[CURL_ERROR_SIZE] = "";
  ~Transfer() { curl_slist_free_all(headers); }
};

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const Request& req = *t->request;
  std::size_t bytes = size * n;
  if (req.max_body_bytes && t->received + bytes > req.max_body_bytes) {
    t->too_large = true;  // the cap holds without, or despite, a Content-Length
    return 0;             // a short count aborts the transfer
  }
  t->received += bytes;
  if (!req.on_body) {
    t->response.body.append(data, bytes);
  } else if (!req.on_body(data, bytes)) {
    t->refused = true;
    return 0;
  }
  return bytes;
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

const char* ipv4_class(std::uint32_t a) {  // host byte order
  auto in = [a](std::uint32_t net, int bits) { return (a >> (32 - bits)) == (net >> (32 - bits)); };
  if (in(0x00000000, 8)) return "unspecified";
  if (in(0x7F000000, 8)) return "loopback";
  if (in(0x0A000000, 8) || in(0xAC100000, 12) || in(0xC0A80000, 16)) return "private";
  if (in(0x64400000, 10)) return "shared";
  if (in(0xA9FE0000, 16)) return "link-local";
  if (in(0xE0000000, 4)) return "multicast";
  if (in(0xF0000000, 4)) return "reserved";  // and 255.255.255.255
  return "public";
}

const char* ipv6_class(const unsigned char* b) {
  static const unsigned char zero[16] = {};
  auto v4 = [b](int at) {
    return ipv4_class(std::uint32_t{b[at]} << 24 | std::uint32_t{b[at + 1]} << 16 |
                      std::uint32_t{b[at + 2]} << 8 | b[at + 3]);
  };
  if (std::equal(b, b + 16, zero)) return "unspecified";
  if (std::equal(b, b + 15, zero) && b[15] == 1) return "loopback";
  if (std::equal(b, b + 10, zero)) {
    if (b[10] == 0xFF && b[11] == 0xFF) return v4(12);  // ::ffff:a.b.c.d
    if (b[10] == 0 && b[11] == 0) return v4(12);        // ::a.b.c.d (deprecated)
  }
  static const unsigned char nat64[12] = {0, 0x64, 0xFF, 0x9B};
  if (std::equal(b, b + 12, nat64)) return v4(12);  // 64:ff9b::a.b.c.d
  if (b[0] == 0x20 && b[1] == 0x02) return v4(2);   // 6to4 2002:AABB:CCDD::
  if (b[0] == 0xFF) return "multicast";
  if ((b[0] & 0xFE) == 0xFC) return "private";                     // fc00::/7 unique local
  if (b[0] == 0xFE && (b[1] & 0xC0) == 0x80) return "link-local";  // fe80::/10
  if (b[0] == 0xFE && (b[1] & 0xC0) == 0xC0) return "private";     // fec0::/10 site-local
  return "public";
}

// CURLOPT_OPENSOCKETFUNCTION with refuse_private_addresses: every connection (redirects
// included) to a resolved address passes here before connect().
curl_socket_t open_public_socket(void* user, curlsocktype, struct curl_sockaddr* a) {
  auto* t = static_cast<Transfer*>(user);
  const char* cls = address_class(&a->addr);
  if (!cls || std::string_view(cls) != "public") {
    char text[INET6_ADDRSTRLEN] = "?";
    if (a->family == AF_INET)
      inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&a->addr)->sin_addr, text,
                sizeof text);
    else if (a->family == AF_INET6)
      inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&a->addr)->sin6_addr, text,
                sizeof text);
    t->private_address = std::string(text) + " (" + (cls ? cls : "unknown family") + ")";
    return CURL_SOCKET_BAD;
  }
  return socket(a->family, a->socktype, a->protocol);
}

void prepare(CURL* easy, const Request& req, Transfer* t) {
  curl_easy_reset(easy);
  t->request = &req;
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, t->errbuf);
  curl_easy_setopt(easy, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, t);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, t);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, req.timeout_ms);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, req.connect_timeout_ms);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  if (req.accept_compressed)
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");  // any encoding curl can decode
  curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, req.post_body ? 0L : 1L);
  if (req.post_body) {
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(req.post_body->size()));
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, req.post_body->data());
  }
  curl_easy_setopt(easy, CURLOPT_MAXREDIRS, static_cast<long>(req.max_redirects));
  if (req.low_speed_seconds > 0) {
    curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, req.low_speed_bytes);
    curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, req.low_speed_seconds);
  }
  if (req.max_body_bytes)  // refuses a larger Content-Length before any byte of the body
    curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(req.max_body_bytes));
  if (req.stop_on_http_error) curl_easy_setopt(easy, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_PRIVATE, t);
  if (req.refuse_private_addresses) {
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, open_public_socket);
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, t);
    curl_easy_setopt(easy, CURLOPT_PROXY, "");  // no proxy from the environment
  }
  for (const auto& [name, value] : req.headers) {
    t->headers = curl_slist_append(t->headers, (name + ": " + value).c_str());
  }
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, t->headers);
}

Failure failure_of(CURLcode code, const Transfer& t) {
  if (t.too_large || code == CURLE_FILESIZE_EXCEEDED) return Failure::kTooLarge;
  if (t.refused) return Failure::kAborted;
  if (!t.private_address.empty()) return Failure::kPrivateAddress;
  switch (code) {
    case CURLE_TOO_MANY_REDIRECTS:
      return Failure::kTooManyRedirects;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
      return Failure::kBadUrl;
    case CURLE_PARTIAL_FILE:
      return Failure::kTruncated;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return Failure::kUnresolved;
    case CURLE_COULDNT_CONNECT:
      return Failure::kNoConnection;
    default:
      return Failure::kOther;
  }
}

void finish(CURL* easy, CURLcode code, Transfer* t) {
  Response& r = t->response;
  curl_easy_getinfo(easy, CURLINFO_NUM_CONNECTS, &r.new_connections);
  curl_easy_getinfo(easy, CURLINFO_REDIRECT_COUNT, &r.redirects);
  char* effective = nullptr;
  curl_easy_getinfo(easy, CURLINFO_EFFECTIVE_URL, &effective);
  r.effective_url = effective ? effective : t->request->url;
  long status = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  // With stop_on_http_error an error status is an answer, not a transport failure.
  if (code == CURLE_OK || code == CURLE_HTTP_RETURNED_ERROR) {
    r.status = status;
    return;
  }
  r.status = 0;
  r.failure = failure_of(code, *t);
  if (r.failure == Failure::kTooLarge) {
    r.error = "body larger than " + std::to_string(t->request->max_body_bytes) + " bytes";
  } else if (r.failure == Failure::kAborted) {
    r.error = "transfer aborted by the receiver of the body";
  } else if (r.failure == Failure::kPrivateAddress) {
    r.error = "private address refused: " + t->private_address;
  } else {
    r.error = curl_easy_strerror(code);
    std::string detail = t->errbuf;
    while (!detail.empty() && (detail.back() == '\n' || detail.back() == '\r')) detail.pop_back();
    if (!detail.empty() && detail != r.error) r.error += ": " + detail;
  }
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

std::optional<std::string> origin_of(const std::string& url) {
  CURLU* u = curl_url();
  if (!u) return std::nullopt;
  std::optional<std::string> out;
  if (curl_url_set(u, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
    char *scheme = nullptr, *host = nullptr, *port = nullptr;
    if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
      std::string s = lower(scheme);
      if (s == "http" || s == "https") out = s + "://" + lower(host) + ":" + port;
    }
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
  }
  curl_url_cleanup(u);
  return out;
}

bool should_retry(const Response& response) {
  if (response.transport_ok())  // 501 Not Implemented gives the same answer next time
    return (response.status >= 500 && response.status != 501) || response.status == 429;
  switch (response.failure) {
    case Failure::kTooLarge:
    case Failure::kTooManyRedirects:
    case Failure::kBadUrl:
    case Failure::kAborted:
    case Failure::kPrivateAddress:
      return false;  // the same answer next time
    default:
      return true;
  }
}

bool never_connected(const Response& response) {
  return response.failure == Failure::kUnresolved || response.failure == Failure::kNoConnection;
}

const char* address_class(const struct sockaddr* address) {
  if (address->sa_family == AF_INET)
    return ipv4_class(ntohl(reinterpret_cast<const sockaddr_in*>(address)->sin_addr.s_addr));
  if (address->sa_family == AF_INET6)
    return ipv6_class(reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr.s6_addr);
  return nullptr;
}

const char* address_class(const std::string& literal) {
  sockaddr_in v4{};
  sockaddr_in6 v6{};
  if (inet_pton(AF_INET, literal.c_str(), &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    return address_class(reinterpret_cast<const sockaddr*>(&v4));
  }
  if (inet_pton(AF_INET6, literal.c_str(), &v6.sin6_addr) == 1) {
    v6.sin6_family = AF_INET6;
    return address_class(reinterpret_cast<const sockaddr*>(&v6));
  }
  return nullptr;
}

double backoff_delay(const RetryPolicy& policy, int retry, std::mt19937& rng) {
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  double exponential = policy.base_delay_s * std::pow(2.0, std::max(0, retry - 1));
  return std::min(policy.max_delay_s, exponential) * jitter(rng);
}

}  // namespace convfail::http
