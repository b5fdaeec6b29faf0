// What every fuzz target shares: the libFuzzer entry point's declaration, FUZZ_CHECK for the
// target's invariants (a broken one aborts, which libFuzzer and the corpus replay report as a
// crash), and the byte tests the invariants use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

// Aborts with the failed condition: an invariant broken is a finding like a crash.
#define FUZZ_CHECK(cond)                                                                \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                     \
    }                                                                                   \
  } while (0)

namespace convfail::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A byte below 0x20 other than those in `allowed`, or DEL: what a terminal acts on.
inline bool has_control_byte(std::string_view s, std::string_view allowed = {}) {
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 || c == 0x7F) && allowed.find(ch) == std::string_view::npos) return true;
  }
  return false;
}

}  // namespace convfail::fuzz
