// Failures grouped by (outcome, signature): one campaign_groups row per pair, its size, its
// representative (the smallest model, then the first), the issues of the same database it may
// already be reported in (FTS5 over the signature's words, the error type, the operators, the
// converter) and the classifier's labels on its error text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/db.h"
#include "core/taxonomy.h"

namespace convfail::testing {

// Recomputes the groups of a campaign from its model rows (keeping the minimisation of a group
// whose representative did not change) and sets campaign_models.group_id.
void regroup(Db& db, std::int64_t campaign);

struct Candidate {
  std::string issue;  // owner/repo#n
  double score = 0;   // higher is better (-bm25)
  std::string why;    // the matched words
};

// The stored issues that may report this failure, best first (at most `limit`). With `repos`
// set, only issues of those repositories (set and empty: no candidates).
std::vector<Candidate> match_issues(Db& db, const std::string& signature,
                                    const std::string& message,
                                    const std::vector<std::string>& operators, int limit = 5,
                                    const std::optional<std::vector<std::string>>& repos = {});

// The stored repositories whose issues may report a torch.onnx failure: those the taxonomy
// names torch.onnx's, and those it names no converter for. A tf2onnx issue is never a candidate
// for a torch.onnx campaign's failure. nullopt: every stored repository qualifies.
std::optional<std::vector<std::string>> torch_onnx_repos(Db& db, const Taxonomy& taxonomy);

// The query match_issues runs (FTS5 syntax, each word quoted): one of the failure's key terms
// (the operator torch.onnx could not export, the ONNX operator Runtime rejected, else the
// model's operators) AND any of the other words, so an issue that never names the failing
// operator is no candidate and a group without candidates is "new".
std::string match_query(const std::string& signature, const std::string& message,
                        const std::vector<std::string>& operators);

// Fills candidates_json of every group of the campaign, and labels_json from the rules of
// `data_dir` (symptom, cause, stage on the group's error text).
void match_groups(Db& db, std::int64_t campaign, const std::string& data_dir);

// The groups as `test groups --json` prints them, each with its representative's message as said.
nlohmann::json list_groups(Db& db, std::int64_t campaign);

}  // namespace convfail::testing
