// A small libcurl HTTP layer: one request at a time over a kept-alive easy handle (Client), or
// many in parallel over the multi interface (MultiClient). Both reuse connections between calls.
// Transport failures are reported in Response::error, never thrown. http and https only, also
// after redirects. RetryPolicy, should_retry and backoff_delay are the one retry policy of every
// HTTP user (the crawler's API calls, artifact downloads).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

struct sockaddr;

namespace convfail::http {

struct Request {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;  // name, value
  long timeout_ms = 30000;                                   // whole transfer
  long connect_timeout_ms = 10000;
  int max_redirects = 5;  // more: Failure::kTooManyRedirects
  // A transfer slower than low_speed_bytes per second for low_speed_seconds is a timeout (0: off).
  long low_speed_bytes = 0;
  long low_speed_seconds = 0;
  // Body cap (0: none): a larger Content-Length (the bytes on the wire, compressed or not), or
  // more body bytes while streaming (no or a lying Content-Length, or a compressed body that
  // inflates), ends the transfer with Failure::kTooLarge.
  std::uint64_t max_body_bytes = 0;
  // When set, the body goes here chunk by chunk instead of into Response::body; returning false
  // aborts the transfer (Failure::kAborted).
  std::function<bool(const char* data, std::size_t size)> on_body = nullptr;
  // An HTTP error status (>= 400) ends the transfer at its headers: status set, no body, and no
  // transport failure. Off: error bodies are read like any other.
  bool stop_on_http_error = false;
  // Advertise and decode gzip and the like; off: the bytes exactly as served.
  bool accept_compressed = true;
  // Refuse to connect to a non-public address (see address_class): checked on the socket address
  // of every connection after DNS resolution, redirects included (CURLOPT_OPENSOCKETFUNCTION), so
  // a public name resolving to 127.0.0.1 is refused as well; Failure::kPrivateAddress, before any
  // byte is sent. Proxies from the environment are not used then (they would connect for us).
  bool refuse_private_addresses = false;
  // When set, the request is a POST of this body (redirects are then not followed: a 3xx is
  // returned as it came, since curl would turn the POST into a GET).
  std::optional<std::string> post_body = std::nullopt;
};

// Why a transfer failed; kOther covers timeouts, resets and short bodies.
enum class Failure {
  kNone,
  kUnresolved,    // the host name (or the proxy's) did not resolve: no address to connect to
  kNoConnection,  // no connection: refused, or the host or network unreachable
  kTooLarge,
  kTooManyRedirects,
  kBadUrl,
  kTruncated,
  kAborted,
  kOther,
  kPrivateAddress,  // Request::refuse_private_addresses refused the connection
};

struct Response {
  long status = 0;                             // 0 when the transfer failed
  std::map<std::string, std::string> headers;  // names lower-cased; the last value wins
  std::string body;
  std::string error;  // curl's message when the transfer failed (timeout, reset, short body)
  Failure failure = Failure::kNone;
  long new_connections = 0;   // connections opened for this transfer (0: an open one was reused)
  long redirects = 0;         // redirects followed to get this response
  std::string effective_url;  // the URL that answered (after redirects)
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

// The class of an IP address: "public", or why it is not: "unspecified" (0.0.0.0/8, ::),
// "loopback" (127/8, ::1), "private" (10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10),
// "shared" (100.64/10, carrier-grade NAT), "link-local" (169.254/16, fe80::/10), "multicast"
// (224/4, ff00::/8), "reserved" (240/4, broadcast). IPv4 embedded in IPv6 (mapped ::ffff:a.b.c.d,
// compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) is classed by its IPv4 address.
// nullptr when `literal` is not an IPv4 or IPv6 address literal (a sockaddr of another family).
const char* address_class(const std::string& literal);
const char* address_class(const struct sockaddr* address);

// "scheme://host:port" of an http(s) URL (lower-case, the default port made explicit), parsed by
// libcurl's URL parser; nullopt for anything else. Two URLs are on the same origin when these
// are equal.
std::optional<std::string> origin_of(const std::string& url);

// How many times and how fast to retry a transient failure (see should_retry).
struct RetryPolicy {
  int max_retries = 6;        // extra attempts after failures: failure max_retries + 1 is final
  double base_delay_s = 1.0;  // before retry n: min(max_delay_s, base_delay_s * 2^(n-1)) * [0.5, 1)
  double max_delay_s = 60.0;
  bool gives_up_after(int failures) const { return failures > max_retries; }
};

// Whether another attempt may succeed: transport faults (timeouts, resets, refused connections,
// truncated bodies) and HTTP 5xx (but 501) and 429 are transient; a body over the cap, a redirect
// loop, a bad URL or scheme, an aborted transfer and other statuses are not.
bool should_retry(const Response& response);

// Whether the transfer failed before any server was reached: the name did not resolve or no
// connection could be made. Retrying with back-off helps a host that answered before (a restart,
// a network blip); for one that never answered the caller should fail at once (an offline
// machine, a mistyped URL) instead of waiting out its retries.
bool never_connected(const Response& response);

// The wait in seconds before retry `retry` (1 = the first): exponential, capped, with jitter so
// that clients failing together do not retry together.
double backoff_delay(const RetryPolicy& policy, int retry, std::mt19937& rng);

}  // namespace convfail::http
