#include "core/secrets.h"

#include <openssl/evp.h>
#include <sys/random.h>

#include <cerrno>
#include <vector>

#include "core/error.h"

namespace convfail {

namespace {

std::string hex(const unsigned char* d, std::size_t n) {
  static const char* k = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) s += k[d[i] >> 4], s += k[d[i] & 15];
  return s;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  return hex(md, len);
}

std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> buf(bytes);
  std::size_t got = 0;
  while (got < bytes) {
    ssize_t n = getrandom(buf.data() + got, bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw UserError("cannot read random bytes from the kernel (getrandom)");
    got += static_cast<std::size_t>(n);
  }
  return hex(buf.data(), bytes);
}

bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace convfail
