// The artifact scanner (repro/artifact_scan) on any issue text. Invariants: every artifact has
// a known kind and what that kind needs (a URL for links, code for scripts), and none repeats.
#include <set>
#include <tuple>

#include "fuzz_check.h"
#include "repro/artifact_scan.h"

using namespace convfail;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(fuzz::as_text(data, size));
  std::vector<repro::FoundArtifact> found = repro::scan_text(text, "comment:3");
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  for (const repro::FoundArtifact& a : found) {
    FUZZ_CHECK(a.source_field == "comment:3");
    if (a.kind == "script") {
      FUZZ_CHECK(!a.code.empty() && a.code.size() <= text.size() + 1);
    } else {
      FUZZ_CHECK(a.kind == "model" || a.kind == "archive" || a.kind == "external_link");
      // The URL as written, maybe with "?raw=true" added (a github.com .../blob/ link).
      FUZZ_CHECK(!a.url.empty() && a.url.size() <= text.size() + 9);
      FUZZ_CHECK(!fuzz::has_control_byte(a.url));
    }
    FUZZ_CHECK(seen.insert({a.kind, a.url, a.code}).second);
  }
  return 0;
}
