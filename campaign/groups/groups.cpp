#include "campaign/groups/groups.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <re2/re2.h>

#include "campaign/outcomes.h"
#include "campaign/store/campaign_store.h"
#include "classifier/engine.h"
#include "classifier/rules.h"
#include "core/issue_queries.h"
#include "core/taxonomy.h"
#include "core/text.h"

using nlohmann::json;

namespace convfail::campaign {
namespace {

// Words of a signature that say nothing about the failure (placeholders and filler).
const std::set<std::string>& stop_words() {
  static const std::set<std::string> k = {
      "the", "and", "for", "with", "from", "not", "this", "that", "was", "are", "name", "path",
      "addr", "n", "is", "of", "to", "in", "at", "be", "by", "or", "an", "as", "on", "it", "but",
      "has", "have", "its", "into", "than", "which", "error", "none", "true", "false", "type",
      "value", "got",
      // torch.onnx's request-support boilerplate, in every unsupported-operator message
      "please", "feel", "free", "request", "submit", "pull", "github", "https", "pytorch",
      "support"};
  return k;
}

// Words nearly every converter issue holds, whatever its failure: never a key term, so never
// what makes a candidate. The stored issues add their own (CommonWords).
const std::set<std::string>& converter_words() {
  static const std::set<std::string> k = {
      "onnx",       "export",       "exporting",   "exported",    "exporter",
      "model",      "models",       "torch",       "pytorch",     "error",
      "errors",     "runtimeerror", "exception",   "onnxruntime", "onnxruntimeerror",
      "runtime",    "opset",        "version",     "convert",     "converting",
      "conversion", "converter",    "fail",        "fails",       "failed",
      "failure",    "node",         "nodes",       "graph",       "input",
      "inputs",     "output",       "outputs",     "tensor",      "tensors",
      "python",     "file",         "line",        "bug",         "issue",
      "support",    "supported",    "unsupported", "operator",    "operators",
      "function",   "module"};
  return k;
}

// A word held by at least 1 in kCommonShareDivisor of the stored issues is common, once there
// are kCommonMinIssues of them (fewer say nothing about frequency).
constexpr std::int64_t kCommonShareDivisor = 5;
constexpr std::int64_t kCommonMinIssues = 20;

std::vector<std::string> words_of(const std::string& text) {
  static const RE2 kWord(R"(([A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z0-9_]+)?))");
  std::vector<std::string> out;
  re2::StringPiece in(text);
  std::string w;
  while (RE2::FindAndConsume(&in, kWord, &w)) {
    std::string l = lower(w);
    // FTS5's unicode61 tokenizer splits on '_' and ':'; keep the parts.
    std::string part;
    for (char c : l + " ") {
      if (c == '_' || c == ':' || c == ' ') {
        if (part.size() >= 3 && !stop_words().count(part)) out.push_back(part);
        part.clear();
      } else {
        part += c;
      }
    }
  }
  return out;
}

std::vector<std::string> key_terms(const std::string& signature,
                                   const std::vector<std::string>& operators,
                                   const std::set<std::string>& common) {
  // What names the failure: the aten/onnx/prim operator torch.onnx could not export, the ONNX
  // operator Runtime rejected ("op (gemm)", "operator (layernormalization)"), the function
  // whose export failed ("export of instance_norm"). Without one (a mismatch), the operators of
  // the (minimised) model; without those, the error's own words. A word every converter issue
  // holds (`common`) is never a key.
  static const RE2 kQualified(R"('(?:aten|onnx|prim)::([a-z0-9_]+)')");
  static const RE2 kOrtOp(R"((?:op|operator) \(([a-z0-9_]+)\))");
  static const RE2 kExportOf(R"(export of (?:operator )?([a-z0-9_]+))");
  std::vector<std::string> keys;
  std::set<std::string> seen;
  auto add = [&](const std::string& k) {
    if (k.size() >= 3 && !stop_words().count(k) && !common.count(k) && seen.insert(k).second)
      keys.push_back(k);
  };
  bool named = false;  // the signature names an operator, even a common one
  for (const RE2* re : {&kQualified, &kOrtOp, &kExportOf}) {
    re2::StringPiece in(signature);
    std::string k;
    while (RE2::FindAndConsume(&in, *re, &k)) add(k), named = true;
  }
  if (named) return keys;
  for (const auto& op : operators)
    if (op != "Constant" && op != "Identity") add(lower(op)), named = true;
  if (named) return keys;
  for (const auto& w : words_of(signature)) add(w);
  return keys;
}

// A word of the query as FTS5 reads it: quoted, so FTS5 syntax in a signature cannot break it.
std::string quoted(const std::string& w) {
  std::string q = "\"";
  for (char c : w)
    if (c != '"') q += c;
  return q + "\"";
}

// Search options limited to `repos` (nullopt: every stored repository).
SearchOptions search_in(const std::optional<std::vector<std::string>>& repos) {
  SearchOptions so;
  if (repos) {
    IssueFilter f;
    f.repos = *repos;
    so.where = f;
  }
  return so;
}

}  // namespace

CommonWords::CommonWords(Db& db, std::optional<std::vector<std::string>> repos)
    : db_(db), repos_(std::move(repos)) {
  IssueFilter f;
  if (repos_) f.repos = *repos_;
  issues_ = repos_ && repos_->empty() ? 0 : count_issues(db_, f);
}

bool CommonWords::operator()(const std::string& word) {
  if (converter_words().count(word)) return true;
  if (issues_ < kCommonMinIssues) return false;  // too few issues to tell
  if (auto it = cache_.find(word); it != cache_.end()) return it->second;
  SearchOptions so = search_in(repos_);
  so.fts = true;
  so.limit = 1;
  std::int64_t holding = 0;
  try {
    search_issues(db_, quoted(word), so, &holding);
  } catch (const std::exception&) {
    holding = 0;  // a word FTS5 cannot search is no common word
  }
  return cache_[word] = holding * kCommonShareDivisor >= issues_;
}

std::set<std::string> CommonWords::of(const std::vector<std::string>& words) {
  std::set<std::string> out;
  for (const auto& w : words)
    if ((*this)(w)) out.insert(w);
  return out;
}

std::string match_query(const std::string& signature, const std::string& message,
                        const std::vector<std::string>& operators,
                        const std::set<std::string>& common) {
  std::vector<std::string> terms;
  std::set<std::string> seen;
  auto add = [&](const std::string& w) {
    if (seen.insert(w).second && terms.size() < 24) terms.push_back(w);
  };
  for (const auto& w : words_of(signature)) add(w);
  // The error type: the word before the first ':' of the message (RuntimeError, ...).
  auto colon = message.find(':');
  if (colon != std::string::npos && colon < 60)
    for (const auto& w : words_of(message.substr(0, colon))) add(w);
  for (const auto& op : operators)
    for (const auto& w : words_of(op)) add(w);
  add("onnx");
  // A key term ("sinh", "instance_norm", which FTS5 reads as the phrase "instance norm") must
  // occur; the other words rank. No key term: no query, no candidate.
  std::string keys;
  for (const auto& k : key_terms(signature, operators, common))
    keys += (keys.empty() ? "" : " OR ") + quoted(k);
  if (keys.empty()) return "";
  std::string words;
  for (const auto& t : terms) words += (words.empty() ? "" : " OR ") + quoted(t);
  return "(" + keys + ") AND (" + words + ")";
}

namespace {

// The ids of `hits` whose issue (title, body or a comment) holds `word`.
std::set<std::int64_t> hits_holding(Db& db, const std::string& word,
                                    const std::vector<SearchHit>& hits) {
  SearchOptions so;
  IssueFilter f;
  f.ids.emplace();
  for (const auto& h : hits) f.ids->push_back(h.issue.id);
  so.where = f;
  so.fts = true;
  so.limit = static_cast<std::int64_t>(hits.size());
  std::set<std::int64_t> out;
  for (const auto& h : search_issues(db, quoted(word), so)) out.insert(h.issue.id);
  return out;
}

}  // namespace

std::vector<Candidate> match_issues(Db& db, const std::string& signature,
                                    const std::string& message,
                                    const std::vector<std::string>& operators, int limit,
                                    const std::optional<std::vector<std::string>>& repos,
                                    CommonWords* common_words) {
  std::vector<Candidate> out;
  if (repos && repos->empty()) return out;
  if (db.scalar("SELECT count(*) FROM issues") == 0) return out;
  std::optional<CommonWords> own;
  if (!common_words) common_words = &own.emplace(db, repos);
  std::vector<std::string> asked = key_terms(signature, operators, {});
  for (const auto& w : words_of(signature)) asked.push_back(w);
  const std::set<std::string> common = common_words->of(asked);
  const std::vector<std::string> keys = key_terms(signature, operators, common);
  std::string q = match_query(signature, message, operators, common);
  if (q.empty()) return out;
  SearchOptions so = search_in(repos);
  so.limit = limit;
  so.fts = true;  // match_query writes FTS5 syntax ("word" OR "word")
  so.highlight_open = "[";
  so.highlight_close = "]";
  std::vector<SearchHit> hits;
  std::map<std::int64_t, std::set<std::string>> named;  // issue id -> the key terms it holds
  try {
    hits = search_issues(db, q, so);
    if (!hits.empty())
      for (const auto& k : keys)
        for (std::int64_t id : hits_holding(db, k, hits)) named[id].insert(k);
  } catch (const std::exception&) {
    return out;
  }
  static const RE2 kMarked(R"(\[([^\[\]]{1,60})\])");
  for (const auto& h : hits) {
    auto keys_held = named.find(h.issue.id);
    if (keys_held == named.end()) continue;  // a candidate names the failure, never only "onnx"
    Candidate c;
    c.issue = h.issue.repo + "#" + std::to_string(h.issue.number);
    c.score = -h.score;
    std::set<std::string> also;
    for (const auto& sn : h.snippets) {
      re2::StringPiece in(sn.text);
      std::string w;
      while (RE2::FindAndConsume(&in, kMarked, &w))
        if (!keys_held->second.count(lower(w))) also.insert(lower(w));
    }
    std::vector<std::string> key_words(keys_held->second.begin(), keys_held->second.end());
    std::vector<std::string> other(also.begin(), also.end());
    c.why = "matched: " + terminal_safe(join(key_words, ", ")) +
            (other.empty() ? "" : " (also: " + terminal_safe(join(other, ", ")) + ")");
    out.push_back(c);
  }
  return out;
}

void regroup(Db& db, std::int64_t campaign) {
  // One group per (outcome, signature) of the failing models; its representative is the smallest
  // model (nodes known), else the first.
  std::map<std::pair<std::string, std::string>, GroupPlan> groups;
  for (const StoredModel& m : load_models(db, campaign, false)) {
    if (!is_failure(m.outcome)) continue;
    GroupPlan& g = groups[{m.outcome, m.signature}];
    g.outcome = m.outcome;
    g.signature = m.signature;
    ++g.size;
    std::int64_t nodes = m.nodes.value_or(0);
    if (g.representative_seq < 0 ||
        (nodes > 0 && (g.representative_nodes == 0 || nodes < g.representative_nodes))) {
      g.representative_seq = m.seq;
      g.representative_nodes = nodes;
    }
  }
  std::vector<GroupPlan> plans;
  for (auto& [key, g] : groups) plans.push_back(std::move(g));
  store_groups(db, campaign, plans);
}

std::optional<std::vector<std::string>> torch_onnx_repos(Db& db, const Taxonomy& taxonomy) {
  std::vector<std::string> stored = stored_repositories(db);
  std::vector<std::string> keep = taxonomy.repositories_of("torch.onnx", stored);
  for (const auto& repo : stored)  // repositories the taxonomy names no converter for
    if (taxonomy.converter_for_repo(repo) == repo) keep.push_back(repo);
  if (keep.size() == stored.size()) return std::nullopt;
  std::sort(keep.begin(), keep.end());
  return keep;
}

void match_groups(Db& db, std::int64_t campaign, const std::string& data_dir) {
  std::unique_ptr<classifier::Engine> engine;
  std::optional<std::vector<std::string>> repos;
  try {
    Taxonomy taxonomy = Taxonomy::load(data_dir);
    repos = torch_onnx_repos(db, taxonomy);
    engine = std::make_unique<classifier::Engine>(
        classifier::load_rules(data_dir + "/rules", taxonomy), taxonomy);
  } catch (const std::exception&) {
    engine.reset();  // no rules here: groups get no labels
  }
  std::map<std::int64_t, StoredModel> models;
  for (auto& m : load_models(db, campaign)) models.emplace(m.seq, std::move(m));
  CommonWords common(db, repos);  // one count per word for all the groups
  for (const StoredGroup& g : load_groups(db, campaign)) {
    const StoredModel* rep = nullptr;
    if (g.representative_seq)
      if (auto it = models.find(*g.representative_seq); it != models.end()) rep = &it->second;
    const json& graph = !g.minimised_graph.is_null() ? g.minimised_graph
                        : rep                        ? rep->graph
                                                     : json();
    std::vector<std::string> ops;
    std::set<std::string> seen;
    if (graph.is_object() && graph.contains("ops") && graph["ops"].is_array())
      for (const auto& o : graph["ops"])
        if (o.is_string() && seen.insert(o.get<std::string>()).second)
          ops.push_back(o.get<std::string>());
    const std::string message = rep ? rep->message : "";
    json cands = json::array();
    for (const auto& c : match_issues(db, g.signature, message, ops, 5, repos, &common))
      cands.push_back({{"issue", c.issue}, {"score", c.score}, {"why", c.why}});
    json labels = json::object();
    if (engine) {
      classifier::IssueText text;
      text.title = "torch.onnx export to ONNX Runtime: " + g.signature;
      text.body = message;
      auto cls = engine->classify(text);
      for (const auto& d : cls.decisions) labels[d.dimension] = d.label ? json(*d.label) : json();
    }
    set_group_matches(db, g.id, cands, labels);
  }
}

json list_groups(Db& db, std::int64_t campaign) {
  auto opt = [](const std::optional<std::int64_t>& v) { return v ? json(*v) : json(); };
  std::map<int, std::string> messages;  // the representatives' messages, as said
  for (const StoredModel& m : load_models(db, campaign, false))
    if (!m.message.empty()) messages[m.seq] = m.message;
  json out = json::array();
  for (const StoredGroup& g : load_groups(db, campaign)) {
    auto said = g.representative_seq ? messages.find(static_cast<int>(*g.representative_seq))
                                     : messages.end();
    out.push_back({{"id", g.id},
                   {"outcome", g.outcome},
                   {"signature", g.signature},
                   {"size", g.size},
                   {"representative_seq", opt(g.representative_seq)},
                   {"original_nodes", opt(g.original_nodes)},
                   {"minimised_nodes", opt(g.minimised_nodes)},
                   {"candidates", g.candidates},
                   {"labels", g.labels},
                   {"message", said == messages.end() ? json() : json(said->second)}});
  }
  return out;
}

}  // namespace convfail::campaign
