#include "cli/stored_verdicts.h"

#include "repro/verdict_store.h"

namespace convfail::cli {

namespace {

classifier::ExecutionVerdict plain(const repro::StoredVerdict& v) {
  return {v.id, v.kind, v.verdict, v.step, v.signature};
}

}  // namespace

classifier::ExecutionVerdicts stored_verdicts(Db& db) {
  classifier::ExecutionVerdicts out;
  for (const auto& [issue, runs] : repro::latest_verdicts_by_issue(db))
    for (const repro::StoredVerdict& v : runs) out[issue].push_back(plain(v));
  return out;
}

std::vector<classifier::ExecutionVerdict> stored_verdicts(Db& db, std::int64_t issue_id) {
  std::vector<classifier::ExecutionVerdict> out;
  for (const repro::StoredVerdict& v : repro::latest_verdicts(db, issue_id))
    out.push_back(plain(v));
  return out;
}

}  // namespace convfail::cli
