// Failures grouped by (outcome, signature): one campaign_groups row per pair, its size, its
// representative (the smallest model, then the first), the issues of the same database it may
// already be reported in (FTS5 over the signature's words, the error type, the operators, the
// converter) and the classifier's labels on its error text.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/db.h"
#include "core/taxonomy.h"

namespace convfail::campaign {

// Recomputes the groups of a campaign from its model rows (keeping the minimisation of a group
// whose representative did not change) and sets campaign_models.group_id.
void regroup(Db& db, std::int64_t campaign);

struct Candidate {
  std::string issue;  // owner/repo#n
  double score = 0;   // higher is better (-bm25)
  std::string why;    // "matched: " the key terms it holds (also: the other words shown)
};

// Which words are too common to make a candidate: those nearly every converter issue holds
// (a hand list: onnx, export, model, torch, error, ...) and those that at least a fifth of the
// stored issues a candidate may come from hold (`repos` as match_issues; counted once there are
// 20 of them, by FTS5 over titles, bodies and comments; each word asked once).
class CommonWords {
 public:
  CommonWords(Db& db, std::optional<std::vector<std::string>> repos);
  bool operator()(const std::string& word);
  std::set<std::string> of(const std::vector<std::string>& words);  // the common ones

 private:
  Db& db_;
  std::optional<std::vector<std::string>> repos_;
  std::int64_t issues_ = 0;
  std::map<std::string, bool> cache_;
};

// The stored issues that may report this failure, best first (at most `limit`). With `repos`
// set, only issues of those repositories (set and empty: no candidates). Each candidate holds a
// key term of match_query that is no common word; without one there is no candidate (the group
// is new). `common` is shared by the calls of one campaign (nullptr: one of its own).
std::vector<Candidate> match_issues(Db& db, const std::string& signature,
                                    const std::string& message,
                                    const std::vector<std::string>& operators, int limit = 5,
                                    const std::optional<std::vector<std::string>>& repos = {},
                                    CommonWords* common = nullptr);

// The stored repositories whose issues may report a torch.onnx failure: those the taxonomy
// names torch.onnx's, and those it names no converter for. A tf2onnx issue is never a candidate
// for a torch.onnx campaign's failure. nullopt: every stored repository qualifies.
std::optional<std::vector<std::string>> torch_onnx_repos(Db& db, const Taxonomy& taxonomy);

// The query match_issues runs (FTS5 syntax, each word quoted): one of the failure's key terms
// (the operator torch.onnx could not export, the ONNX operator Runtime rejected, else the
// model's operators, else the signature's own words), none of them in `common`, AND any of the
// other words, so an issue that never names the failing operator is no candidate. Empty when
// no key term is left: no candidate, the group is "new".
std::string match_query(const std::string& signature, const std::string& message,
                        const std::vector<std::string>& operators,
                        const std::set<std::string>& common = {});

// Fills candidates_json of every group of the campaign, and labels_json from the rules of
// `data_dir` (symptom, cause, stage on the group's error text).
void match_groups(Db& db, std::int64_t campaign, const std::string& data_dir);

// The groups as `test groups --json` prints them, each with its representative's message as said.
nlohmann::json list_groups(Db& db, std::int64_t campaign);

}  // namespace convfail::campaign
