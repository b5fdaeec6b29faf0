#include "testing/groups.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <re2/re2.h>

#include "classifier/engine.h"
#include "classifier/rules.h"
#include "core/issue_queries.h"
#include "core/taxonomy.h"
#include "core/text.h"
#include "testing/oracle.h"

using nlohmann::json;

namespace convfail::testing {
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
                                   const std::vector<std::string>& operators) {
  // What names the failure: the aten/onnx/prim operator torch.onnx could not export, the ONNX
  // operator Runtime rejected ("op (gemm)", "operator (layernormalization)"), the function
  // whose export failed ("export of instance_norm"). Without one (a mismatch), the operators of
  // the (minimised) model.
  static const RE2 kQualified(R"('(?:aten|onnx|prim)::([a-z0-9_]+)')");
  static const RE2 kOrtOp(R"((?:op|operator) \(([a-z0-9_]+)\))");
  static const RE2 kExportOf(R"(export of (?:operator )?([a-z0-9_]+))");
  std::vector<std::string> keys;
  std::set<std::string> seen;
  auto add = [&](const std::string& k) {
    if (k.size() >= 3 && !stop_words().count(k) && seen.insert(k).second) keys.push_back(k);
  };
  for (const RE2* re : {&kQualified, &kOrtOp, &kExportOf}) {
    re2::StringPiece in(signature);
    std::string k;
    while (RE2::FindAndConsume(&in, *re, &k)) add(k);
  }
  if (keys.empty())
    for (const auto& op : operators)
      if (op != "Constant" && op != "Identity") add(lower(op));
  return keys;
}

}  // namespace

std::string match_query(const std::string& signature, const std::string& message,
                        const std::vector<std::string>& operators) {
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
  // Every word quoted: FTS5 syntax in a signature cannot break the query. A key term ("sinh",
  // "instance_norm", which FTS5 reads as the phrase "instance norm") must occur; the other
  // words rank.
  auto quoted = [](const std::string& w) {
    std::string q = "\"";
    for (char c : w)
      if (c != '"') q += c;
    return q + "\"";
  };
  std::string words;
  for (const auto& t : terms) words += (words.empty() ? "" : " OR ") + quoted(t);
  std::string keys;
  for (const auto& k : key_terms(signature, operators))
    keys += (keys.empty() ? "" : " OR ") + quoted(k);
  if (keys.empty()) return words;
  return "(" + keys + ") AND (" + words + ")";
}

std::vector<Candidate> match_issues(Db& db, const std::string& signature,
                                    const std::string& message,
                                    const std::vector<std::string>& operators, int limit,
                                    const std::optional<std::vector<std::string>>& repos) {
  std::vector<Candidate> out;
  std::string q = match_query(signature, message, operators);
  if (q.empty() || db.scalar("SELECT count(*) FROM issues") == 0) return out;
  if (repos && repos->empty()) return out;
  SearchOptions so;
  if (repos) {
    IssueFilter f;
    f.repos = *repos;
    so.where = f;
  }
  so.limit = limit;
  so.fts = true;  // match_query writes FTS5 syntax ("word" OR "word")
  so.highlight_open = "[";
  so.highlight_close = "]";
  std::vector<SearchHit> hits;
  try {
    hits = search_issues(db, q, so);
  } catch (const std::exception&) {
    return out;
  }
  static const RE2 kMarked(R"(\[([^\[\]]{1,60})\])");
  for (const auto& h : hits) {
    Candidate c;
    c.issue = h.issue.repo + "#" + std::to_string(h.issue.number);
    c.score = -h.score;
    std::set<std::string> why;
    for (const auto& sn : h.snippets) {
      re2::StringPiece in(sn.text);
      std::string w;
      while (RE2::FindAndConsume(&in, kMarked, &w)) why.insert(lower(w));
    }
    std::vector<std::string> words(why.begin(), why.end());
    c.why = words.empty() ? "bm25 over the signature's words"
                          : "matched: " + terminal_safe(join(words, ", "));
    out.push_back(c);
  }
  return out;
}

void regroup(Db& db, std::int64_t campaign) {
  Transaction tx(db);
  struct G {
    std::int64_t size = 0;
    int rep_seq = -1;
    int rep_nodes = 0;
  };
  std::map<std::pair<std::string, std::string>, G> groups;
  auto st = db.prepare(
      "SELECT seq, outcome, COALESCE(signature, ''), COALESCE(nodes, 0) FROM campaign_models "
      "WHERE campaign_id = ? AND outcome IN ('conversion_failure', 'ort_failure', 'mismatch') "
      "ORDER BY seq");
  st.bind(1, campaign);
  while (st.step()) {
    auto& g = groups[{st.text(1), st.text(2)}];
    ++g.size;
    int nodes = static_cast<int>(st.int64(3));
    if (g.rep_seq < 0 || (nodes > 0 && (g.rep_nodes == 0 || nodes < g.rep_nodes))) {
      g.rep_seq = static_cast<int>(st.int64(0));
      g.rep_nodes = nodes;
    }
  }
  // Groups that no longer exist go; the others keep their id (and minimisation when the
  // representative is the same).
  std::set<std::int64_t> keep;
  for (const auto& [key, g] : groups) {
    auto find = db.prepare(
        "SELECT id, representative_seq FROM campaign_groups WHERE campaign_id = ? AND outcome = ? "
        "AND signature = ?");
    find.bind(1, campaign).bind(2, key.first).bind(3, key.second);
    std::int64_t id;
    if (find.step()) {
      id = find.int64(0);
      bool same = !find.is_null(1) && find.int64(1) == g.rep_seq;
      auto up = db.prepare(same ? "UPDATE campaign_groups SET size = ? WHERE id = ?"
                                : "UPDATE campaign_groups SET size = ?, representative_seq = ?, "
                                  "original_nodes = ?, minimised_nodes = NULL, minimised_sha256 = "
                                  "NULL, minimised_program = NULL, minimised_graph_json = NULL "
                                  "WHERE id = ?");
      up.bind(1, g.size);
      if (same) {
        up.bind(2, id);
      } else {
        up.bind(2, g.rep_seq);
        if (g.rep_nodes > 0)
          up.bind(3, g.rep_nodes);
        else
          up.bind_null(3);
        up.bind(4, id);
      }
      up.run();
    } else {
      auto ins = db.prepare(
          "INSERT INTO campaign_groups (campaign_id, outcome, signature, size, "
          "representative_seq, original_nodes) VALUES (?,?,?,?,?,?)");
      ins.bind(1, campaign).bind(2, key.first).bind(3, key.second).bind(4, g.size);
      ins.bind(5, g.rep_seq);
      if (g.rep_nodes > 0)
        ins.bind(6, g.rep_nodes);
      else
        ins.bind_null(6);
      ins.run();
      id = db.last_insert_id();
    }
    keep.insert(id);
    auto set = db.prepare(
        "UPDATE campaign_models SET group_id = ? WHERE campaign_id = ? AND outcome = ? AND "
        "COALESCE(signature, '') = ?");
    set.bind(1, id).bind(2, campaign).bind(3, key.first).bind(4, key.second);
    set.run();
  }
  auto all = db.prepare("SELECT id FROM campaign_groups WHERE campaign_id = ?");
  all.bind(1, campaign);
  std::vector<std::int64_t> gone;
  while (all.step())
    if (!keep.count(all.int64(0))) gone.push_back(all.int64(0));
  for (auto id : gone) {
    auto del = db.prepare("DELETE FROM campaign_groups WHERE id = ?");
    del.bind(1, id);
    del.run();
  }
  tx.commit();
}

std::optional<std::vector<std::string>> torch_onnx_repos(Db& db, const Taxonomy& taxonomy) {
  std::vector<std::string> keep;
  bool all = true;
  auto st = db.prepare("SELECT full_name FROM repositories ORDER BY full_name");
  while (st.step()) {
    std::string repo = st.text(0);
    std::string converter = taxonomy.converter_for_repo(repo);
    if (converter == repo || converter == "torch.onnx")
      keep.push_back(repo);
    else
      all = false;
  }
  if (all) return std::nullopt;
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
  struct Row {
    std::int64_t id;
    std::string signature, message;
    json ops;
  };
  std::vector<Row> rows;
  auto st = db.prepare(
      "SELECT g.id, g.signature, COALESCE(m.message, ''), COALESCE(g.minimised_graph_json, "
      "m.graph_json, '{}') FROM campaign_groups g LEFT JOIN campaign_models m ON "
      "m.campaign_id = g.campaign_id AND m.seq = g.representative_seq WHERE g.campaign_id = ?");
  st.bind(1, campaign);
  while (st.step()) {
    json graph = json::parse(st.text(3), nullptr, false);
    json ops = graph.is_object() && graph.contains("ops") ? graph["ops"] : json::array();
    rows.push_back({st.int64(0), st.text(1), st.text(2), ops});
  }
  for (const auto& r : rows) {
    std::vector<std::string> ops;
    std::set<std::string> seen;
    for (const auto& o : r.ops)
      if (o.is_string() && seen.insert(o.get<std::string>()).second)
        ops.push_back(o.get<std::string>());
    json cands = json::array();
    for (const auto& c : match_issues(db, r.signature, r.message, ops, 5, repos))
      cands.push_back({{"issue", c.issue}, {"score", c.score}, {"why", c.why}});
    json labels = json::object();
    if (engine) {
      classifier::IssueText text;
      text.title = "torch.onnx export to ONNX Runtime: " + r.signature;
      text.body = r.message;
      auto cls = engine->classify(text);
      for (const auto& d : cls.decisions) labels[d.dimension] = d.label ? json(*d.label) : json();
    }
    Transaction tx(db);
    auto up =
        db.prepare("UPDATE campaign_groups SET candidates_json = ?, labels_json = ? WHERE id = ?");
    up.bind(1, cands.dump()).bind(2, labels.dump()).bind(3, r.id);
    up.run();
    tx.commit();
  }
}

json list_groups(Db& db, std::int64_t campaign) {
  json out = json::array();
  auto st = db.prepare(
      "SELECT id, outcome, signature, size, representative_seq, original_nodes, minimised_nodes, "
      "candidates_json, labels_json FROM campaign_groups WHERE campaign_id = ? ORDER BY size "
      "DESC, id");
  st.bind(1, campaign);
  while (st.step()) {
    json g = {{"id", st.int64(0)},
              {"outcome", st.text(1)},
              {"signature", st.text(2)},
              {"size", st.int64(3)},
              {"representative_seq", st.opt_int64(4) ? json(*st.opt_int64(4)) : json()},
              {"original_nodes", st.opt_int64(5) ? json(*st.opt_int64(5)) : json()},
              {"minimised_nodes", st.opt_int64(6) ? json(*st.opt_int64(6)) : json()}};
    json c = json::parse(st.text(7).empty() ? "null" : st.text(7), nullptr, false);
    g["candidates"] = c.is_discarded() ? json() : c;
    json l = json::parse(st.text(8).empty() ? "null" : st.text(8), nullptr, false);
    g["labels"] = l.is_discarded() ? json() : l;
    out.push_back(g);
  }
  return out;
}

}  // namespace convfail::testing
