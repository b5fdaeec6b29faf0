// The error signature normaliser (exec/signature.h) on any error text. Invariants: one line of
// at most kMaxSignatureBytes, no tab, CR or form feed, no upper-case ASCII letter, no leading or
// trailing space (but where the cap cut), no run of spaces; valid UTF-8 in, valid UTF-8 out.
#include "core/text.h"
#include "exec/signature.h"
#include "fuzz_check.h"

using namespace convfail;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(fuzz::as_text(data, size));
  std::string sig = exec::error_signature(text);
  FUZZ_CHECK(sig.size() <= exec::kMaxSignatureBytes);
  // RE2's \s ([\t\n\f\r ]) is collapsed to one space. Other control bytes pass through as
  // they are: a signature is a grouping key, shown only through terminal_safe.
  FUZZ_CHECK(sig.find_first_of("\t\n\f\r") == std::string::npos);
  FUZZ_CHECK(sig.find("  ") == std::string::npos);
  // Trimmed; the cut at kMaxSignatureBytes may end on a space (quoted values grow: '' is
  // '<name>'), which changes no grouping.
  FUZZ_CHECK(sig.empty() || sig.front() != ' ');
  FUZZ_CHECK(sig.empty() || sig.back() != ' ' || sig.size() + 3 >= exec::kMaxSignatureBytes);
  for (char c : sig) FUZZ_CHECK(!(c >= 'A' && c <= 'Z'));
  std::string first_line = text.substr(0, text.find('\n'));
  if (utf8_invalid_at(first_line) == std::string::npos)
    FUZZ_CHECK(utf8_invalid_at(sig) == std::string::npos);
  FUZZ_CHECK(exec::exception_signature("", text) == sig);
  return 0;
}
