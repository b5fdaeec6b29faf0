// parse_issue_ref (core/issue_ref) on any text. Invariants: it accepts or throws UsageError,
// nothing else; an accepted reference has a repository name of the documented characters and a
// number in 1..2^53, and its canonical text and its page URL parse back to the same reference.
#include <cctype>

#include "core/error.h"
#include "core/issue_ref.h"
#include "core/issue_schema.h"
#include "fuzz_check.h"

using namespace convfail;

namespace {

// issue_ref.h's rule: OWNER/NAME, each of letters, digits, '-', '_', '.', and not "." or "..".
bool documented_name(const std::string& repo) {
  std::size_t slash = repo.find('/');
  if (slash == std::string::npos) return false;
  for (std::string part : {repo.substr(0, slash), repo.substr(slash + 1)}) {
    if (part.empty() || part == "." || part == "..") return false;
    for (char c : part)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
        return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(fuzz::as_text(data, size));
  IssueRef ref;
  try {
    ref = parse_issue_ref(text);
  } catch (const UsageError&) {
    return 0;
  }
  FUZZ_CHECK(documented_name(ref.repo));
  FUZZ_CHECK(ref.number >= 1 && ref.number <= kMaxIssueNumber);
  for (const std::string& again : {to_string(ref), issue_page_url(ref)}) {
    IssueRef back = parse_issue_ref(again);
    FUZZ_CHECK(back.repo == ref.repo && back.number == ref.number);
  }
  return 0;
}
