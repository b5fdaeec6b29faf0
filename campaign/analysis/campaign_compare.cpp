#include "campaign/analysis/campaign_compare.h"

#include <algorithm>
#include <set>

#include "campaign/analysis/campaign_breakdown.h"
#include "campaign/groups/groups.h"
#include "campaign/outcomes.h"
#include "campaign/store/campaign_store.h"
#include "core/error.h"
#include "core/json_util.h"
#include "core/text.h"

using nlohmann::json;

namespace convfail::campaign {
namespace {

constexpr std::size_t kExamples = 3;
constexpr std::size_t kReasonChars = 120;

std::string first_line(const std::string& s) {
  return truncate_utf8(s.substr(0, s.find('\n')), kReasonChars);
}

// Why a model of one side is not comparable: "A: invalid: <its message>".
std::string not_run_reason(const std::string& side, const ComparedModel& m) {
  return side + ": " + m.outcome + (m.message.empty() ? "" : ": " + first_line(m.message));
}

// The pairs (index in A, index in B) of the models both campaigns ran; counts how each was found.
std::vector<std::pair<std::size_t, std::size_t>> match_models(Comparison& c) {
  const auto& ma = c.a.models;
  const auto& mb = c.b.models;
  std::vector<bool> used_a(ma.size()), used_b(mb.size());
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  auto pair_up = [&](std::size_t i, std::size_t j, int& counter) {
    used_a[i] = used_b[j] = true;
    pairs.emplace_back(i, j);
    ++counter;
  };
  std::multimap<std::string, std::size_t> by_sha;
  std::map<std::pair<int, std::string>, std::size_t> by_seq;
  std::map<std::string, std::vector<std::size_t>> names_b, names_a;
  for (std::size_t j = 0; j < mb.size(); ++j) {
    if (!mb[j].sha256.empty()) by_sha.emplace(mb[j].sha256, j);
    by_seq[{mb[j].seq, mb[j].name}] = j;
  }
  for (std::size_t i = 0; i < ma.size(); ++i) {
    if (ma[i].sha256.empty()) continue;
    auto [lo, hi] = by_sha.equal_range(ma[i].sha256);
    for (auto it = lo; it != hi; ++it)
      if (!used_b[it->second]) {
        pair_up(i, it->second, c.by_hash);
        break;
      }
  }
  // A synthetic model's plan position and name (its seed) are the same program only when both
  // campaigns drew from the same pairs: filtered draws of two releases' support matrices differ.
  const bool same_draw = support_draw(c.a.config) == support_draw(c.b.config);
  auto comparable_by_name = [&](const ComparedModel& m) {
    return same_draw || m.name.rfind("synthetic-", 0) != 0;
  };
  for (std::size_t i = 0; i < ma.size(); ++i) {
    auto it = by_seq.find({ma[i].seq, ma[i].name});
    if (!used_a[i] && it != by_seq.end() && !used_b[it->second] && comparable_by_name(ma[i]))
      pair_up(i, it->second, c.by_position);
  }
  for (std::size_t i = 0; i < ma.size(); ++i)
    if (!used_a[i] && comparable_by_name(ma[i])) names_a[ma[i].name].push_back(i);
  for (std::size_t j = 0; j < mb.size(); ++j)
    if (!used_b[j]) names_b[mb[j].name].push_back(j);
  for (const auto& [name, is] : names_a) {
    auto it = names_b.find(name);
    if (is.size() == 1 && it != names_b.end() && it->second.size() == 1)
      pair_up(is[0], it->second[0], c.by_name);
  }
  c.matched = static_cast<int>(pairs.size());
  c.only_a = static_cast<int>(ma.size() - pairs.size());
  c.only_b = static_cast<int>(mb.size() - pairs.size());
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

void count_transitions(Comparison& c,
                       const std::vector<std::pair<std::size_t, std::size_t>>& pairs) {
  std::map<std::pair<std::string, std::string>, Transition> t;
  for (const auto& [i, j] : pairs) {
    const auto& from = c.a.models[i].outcome;
    const auto& to = c.b.models[j].outcome;
    Transition& x = t[{from, to}];
    x.from = from;
    x.to = to;
    ++x.models;
    if (x.examples.size() < kExamples) x.examples.push_back(c.b.models[j].name);
    if (!is_comparable(from) || !is_comparable(to)) {
      ++c.not_comparable;
      if (!is_comparable(from)) ++c.not_comparable_reasons[not_run_reason("A", c.a.models[i])];
      if (!is_comparable(to)) ++c.not_comparable_reasons[not_run_reason("B", c.b.models[j])];
      continue;
    }
    if (from != to) ++c.changed;
    if (from == kSuccess && is_failure(to)) ++c.regressed;
  }
  for (auto& [k, x] : t) c.transitions.push_back(std::move(x));
  std::stable_sort(c.transitions.begin(), c.transitions.end(),
                   [](const Transition& x, const Transition& y) {
                     bool cx = x.from != x.to, cy = y.from != y.to;
                     if (cx != cy) return cx;
                     return x.models > y.models;
                   });
}

using GroupKey = std::pair<std::string, std::string>;  // outcome, signature

std::map<GroupKey, const json*> groups_by_key(const json& groups) {
  std::map<GroupKey, const json*> out;
  if (!groups.is_array()) return out;
  for (const auto& g : groups) out[{g.value("outcome", ""), g.value("signature", "")}] = &g;
  return out;
}

// One side's models by group key and by seq, built once (the comparison is linear in models and
// groups).
struct SideIndex {
  std::map<GroupKey, std::vector<std::size_t>> by_key;
  std::map<int, std::size_t> by_seq;
  explicit SideIndex(const CompareSide& s) {
    for (std::size_t i = 0; i < s.models.size(); ++i) {
      by_key[{s.models[i].outcome, s.models[i].signature}].push_back(i);
      by_seq.emplace(s.models[i].seq, i);
    }
  }
  const std::vector<std::size_t>& of(const GroupKey& k) const {
    static const std::vector<std::size_t> none;
    auto it = by_key.find(k);
    return it == by_key.end() ? none : it->second;
  }
};

std::string representative_of(const CompareSide& s, const SideIndex& index, const json& g) {
  const json& rep = g.contains("representative_seq") ? g["representative_seq"] : json();
  if (!rep.is_number_integer()) return "";
  auto it = index.by_seq.find(rep.get<int>());
  return it == index.by_seq.end() ? "" : s.models[it->second].name;
}

// A group as one side (`own`) has it. `other_models`/`other_label`: the other side; `counterpart`
// holds each own model's index there (npos: not in it). A group only on this side is `status`
// ("new" or "fixed") when the other side ran one of its models, else not comparable.
ComparedGroup compared_group(std::string status, const GroupKey& key, const json* ga,
                             const json* gb, const CompareSide& own, const SideIndex& own_index,
                             const CompareSide& other,
                             const std::vector<std::size_t>& counterpart) {
  ComparedGroup g;
  g.outcome = key.first;
  g.signature = key.second;
  if (ga) g.id_a = (*ga).value("id", std::int64_t{0}), g.size_a = (*ga).value("size", 0);
  if (gb) g.id_b = (*gb).value("id", std::int64_t{0}), g.size_b = (*gb).value("size", 0);
  const json& mine = gb ? *gb : *ga;
  g.representative = representative_of(own, own_index, mine);
  const json& said = mine.contains("message") ? mine["message"] : json();
  g.message = shown_failure(g.signature, said.is_string() ? said.get<std::string>() : "");
  bool ran_elsewhere = false, passed_elsewhere = false;
  for (std::size_t i : own_index.of(key)) {
    const std::size_t j = counterpart[i];
    if (j == std::string::npos) {
      ++g.reasons["not in " + other.label];
      continue;
    }
    const ComparedModel& there = other.models[j];
    ++g.other_side[there.outcome];
    if (is_comparable(there.outcome)) {
      ran_elsewhere = true;
      passed_elsewhere = passed_elsewhere || !is_failure(there.outcome);
    } else {
      ++g.reasons[not_run_reason(other.label, there)];
    }
  }
  // Only on this side: new (or fixed) when the other side ran one of its models without a
  // failure; when every one it ran failed there too, another way, the failure changed.
  if (status == "still")
    g.status = status;
  else if (!ran_elsewhere)
    g.status = "not_comparable";
  else
    g.status = passed_elsewhere ? status : "changed";
  if (g.status != "not_comparable") g.reasons.clear();
  return g;
}

void match_groups_by_signature(Comparison& c,
                               const std::vector<std::pair<std::size_t, std::size_t>>& pairs) {
  std::vector<std::size_t> a_in_b(c.a.models.size(), std::string::npos),
      b_in_a(c.b.models.size(), std::string::npos);
  for (const auto& [i, j] : pairs) {
    a_in_b[i] = j;
    b_in_a[j] = i;
  }
  const SideIndex index_a(c.a), index_b(c.b);
  auto ga = groups_by_key(c.a.groups), gb = groups_by_key(c.b.groups);
  for (const auto& [key, g] : gb) {
    auto it = ga.find(key);
    c.groups.push_back(compared_group(it == ga.end() ? "new" : "still", key,
                                      it == ga.end() ? nullptr : it->second, g, c.b, index_b, c.a,
                                      b_in_a));
  }
  for (const auto& [key, g] : ga)
    if (!gb.count(key))
      c.groups.push_back(compared_group("fixed", key, g, nullptr, c.a, index_a, c.b, a_in_b));
  auto rank = [](const std::string& s) {
    return s == "new" ? 0 : s == "still" ? 1 : s == "changed" ? 2 : s == "fixed" ? 3 : 4;
  };
  std::stable_sort(c.groups.begin(), c.groups.end(),
                   [&](const ComparedGroup& x, const ComparedGroup& y) {
                     if (rank(x.status) != rank(y.status)) return rank(x.status) < rank(y.status);
                     return std::max(x.size_a, x.size_b) > std::max(y.size_a, y.size_b);
                   });
}

}  // namespace

int Comparison::count(const std::string& status) const {
  return static_cast<int>(std::count_if(
      groups.begin(), groups.end(), [&](const ComparedGroup& g) { return g.status == status; }));
}

CompareSide load_compare_side(Db& db, std::int64_t campaign, const std::string& label,
                              const std::string& db_name) {
  CompareSide s;
  s.label = label;
  s.db = db_name;
  s.campaign = campaign;
  StoredCampaign stored = load_campaign(db, campaign);  // UserError when unknown
  s.finished = stored.finished();
  s.config = stored.config;
  s.versions = stored.versions;
  ModelQuery q;
  q.graphs = false;
  read_models(
      db, campaign,
      [&](StoredModel&& r) {
        s.models.push_back(
            {r.seq, r.name, r.model_sha256, r.outcome, r.signature, first_line(r.message)});
      },
      q);
  s.groups = list_groups(db, campaign);
  return s;
}

json support_draw(const json& config) {
  return config.is_object() && config.contains("support_matrix") ? config["support_matrix"]
                                                                 : json();
}

Comparison compare_campaigns(CompareSide a, CompareSide b) {
  Comparison c;
  c.a = std::move(a);
  c.b = std::move(b);
  c.differences = config_differences(c.a.config, c.b.config, c.a.versions, c.b.versions);
  auto pairs = match_models(c);
  count_transitions(c, pairs);
  match_groups_by_signature(c, pairs);
  return c;
}

}  // namespace convfail::campaign
