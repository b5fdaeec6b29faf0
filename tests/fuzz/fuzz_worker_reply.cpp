// The campaign worker's reply (campaign/run/worker_reply.h) on any line. Invariants of an accepted
// reply: its edges are pairs of indices within its ops' count, its outcome is "" (exported) or
// one the worker may give (invalid, conversion_failure), its durations are finite and >= 0, and
// no text holds a control byte; a refused one says why, in one printable line.
#include <cmath>

#include "campaign/outcomes.h"
#include "campaign/run/worker_reply.h"
#include "fuzz_check.h"

using namespace convfail;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string line(fuzz::as_text(data, size));
  std::string why;
  std::optional<campaign::WorkerReply> r = campaign::parse_worker_reply(line, &why);
  if (!r) {
    FUZZ_CHECK(!why.empty() && !fuzz::has_control_byte(why));
    return 0;
  }
  FUZZ_CHECK(r->outcome.empty() || r->outcome == campaign::kInvalid ||
             r->outcome == campaign::kConversionFailure);
  FUZZ_CHECK(r->exported == (r->ok && r->outcome.empty()));
  FUZZ_CHECK(r->ops.is_array() && r->ops.size() <= campaign::kMaxOps);
  for (const auto& op : r->ops) {
    FUZZ_CHECK(op.is_string());
    FUZZ_CHECK(!fuzz::has_control_byte(op.get<std::string>()));
  }
  const auto n = static_cast<std::int64_t>(r->ops.size());
  for (const auto& e : r->edges) {
    FUZZ_CHECK(e.is_array() && e.size() == 2);
    for (const auto& v : e) {
      std::int64_t i = v.get<std::int64_t>();
      FUZZ_CHECK(i >= 0 && i < n);
    }
  }
  for (const auto& [k, v] : r->durations.items()) {
    FUZZ_CHECK(!fuzz::has_control_byte(k));
    FUZZ_CHECK(std::isfinite(v.get<double>()) && v.get<double>() >= 0);
  }
  FUZZ_CHECK(r->nodes >= -1);
  for (const std::string* s : {&r->error, &r->stage, &r->error_type, &r->outcome})
    FUZZ_CHECK(!fuzz::has_control_byte(*s));
  FUZZ_CHECK(r->raw_error.size() <= 2000);
  return 0;
}
