// Secrets and digests: the one sha256 of a string (content hashes, stored token hashes), fresh
// random tokens from the kernel, and the constant-time comparison of secrets.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace convfail {

// sha256 of `data`, lower-case hex.
std::string sha256_hex(std::string_view data);

// `bytes` random bytes from the kernel (getrandom), as 2 * bytes lower-case hex digits.
// UserError when the kernel gives none.
std::string random_hex(std::size_t bytes);

// Whether two secrets are equal, in time that depends on their lengths only.
bool same_secret(std::string_view a, std::string_view b);

}  // namespace convfail
