#include "classifier/engine.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>

#include "core/error.h"

namespace re2 {
// RE2::Set is a nested class; this wrapper lets the header forward-declare it.
class RE2Set : public RE2::Set {
 public:
  using RE2::Set::Set;
};
}  // namespace re2

namespace convfail::classifier {

const Decision* Classification::decision(const std::string& dimension) const {
  for (const auto& d : decisions)
    if (d.dimension == dimension) return &d;
  return nullptr;
}

Engine::Engine(RuleSet rules, Taxonomy taxonomy)
    : rules_(std::move(rules)), taxonomy_(std::move(taxonomy)), matchers_(kFieldKindCount) {
  for (std::size_t r = 0; r < rules_.rules.size(); ++r) rule_index_[rules_.rules[r].id] = r;
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(256 << 20);
  for (int k = 0; k < kFieldKindCount; ++k) {
    FieldMatcher& m = matchers_[k];
    auto set = std::make_unique<re2::RE2Set>(options, RE2::UNANCHORED);
    for (std::size_t r = 0; r < rules_.rules.size(); ++r) {
      const Rule& rule = rules_.rules[r];
      if (std::find(rule.fields.begin(), rule.fields.end(), static_cast<FieldKind>(k)) ==
          rule.fields.end())
        continue;
      auto add = [&](const std::string& p, bool is_unless) {
        std::string pattern = compiled_pattern(rule, p);
        if (!is_unless && p == "\\S") {
          // "Any text at all" (priors): checked directly, not in the Set, where a pattern that
          // matches at every byte would make every DFA state a match state.
          m.nonblank.push_back({r, false, std::make_unique<RE2>(pattern, options)});
          return;
        }
        std::string error;
        if (set->Add(pattern, &error) < 0)
          throw UserError(rule.file + ":" + rule.id + ": bad pattern \"" + p + "\": " + error);
        m.entries.push_back({r, is_unless, std::make_unique<RE2>(pattern, options)});
      };
      for (const auto& p : rule.patterns) add(p, false);
      for (const auto& p : rule.unless) add(p, true);
    }
    if (m.entries.empty()) continue;  // nonblank-only fields need no Set
    if (!set->Compile())
      throw UserError(std::string("rules for field ") + field_name(static_cast<FieldKind>(k)) +
                      " do not fit in RE2's memory budget");
    m.set = std::move(set);
  }
}

Engine::~Engine() = default;

Classification Engine::classify(const IssueText& issue) const {
  return classify(issue, segment_issue(issue));
}

Classification Engine::classify(const IssueText& issue, const Segments& segments) const {
  const std::size_t n = rules_.rules.size();
  // Pass 1: one Set scan per field; `unless` hits veto their rule for the whole issue.
  std::vector<char> vetoed(n, 0);
  struct Hit {
    const Field* field;
    const Entry* entry;
    bool nonblank;  // a "\\S" pattern (a prior): fires on any text, without a span
  };
  std::vector<Hit> hits;
  std::vector<int> matched;
  for (const Field& f : segments.fields) {
    const FieldMatcher& m = matchers_[static_cast<int>(f.kind)];
    if (!m.nonblank.empty() && f.text.find_first_not_of(" \t\n\f\r\v") != std::string::npos)
      for (const Entry& e : m.nonblank) hits.push_back({&f, &e, true});
    if (!m.set) continue;
    matched.clear();
    RE2::Set::ErrorInfo error;
    if (!m.set->Match(f.text, &matched, &error)) {
      if (error.kind == RE2::Set::kNoError) continue;
      // The Set's DFA ran out of memory: fall back to the patterns one at a time.
      for (std::size_t i = 0; i < m.entries.size(); ++i)
        if (RE2::PartialMatch(f.text, *m.entries[i].re)) matched.push_back(static_cast<int>(i));
    }
    std::sort(matched.begin(), matched.end());
    for (int idx : matched) {
      const Entry& e = m.entries[idx];
      if (e.is_unless)
        vetoed[e.rule] = 1;
      else
        hits.push_back({&f, &e, false});
    }
  }

  // Pass 2: confirm with the rule's own RE2 for the span, once per rule: the first field it hit
  // (fields come title first). Scoring counts a rule once anyway; confirming it again in every
  // later field would re-scan long code blocks and comments for nothing.
  std::string converter = taxonomy_.converter_for_repo(issue.repo);
  std::vector<char> fired(n, 0);
  Classification out;
  out.evidence.reserve(hits.size());
  for (const Hit& h : hits) {
    std::size_t r = h.entry->rule;
    const Rule& rule = rules_.rules[r];
    if (vetoed[r]) continue;
    if (!rule.converters.empty() && std::find(rule.converters.begin(), rule.converters.end(),
                                              converter) == rule.converters.end())
      continue;
    if (fired[r]) continue;
    const std::string& text = h.field->text;
    // A prior ("\\S": any text at all) is evidence of no text in particular: it has no span
    // (an empty one at 0, no matched text), so no view highlights the field's first letter.
    re2::StringPiece sp(text.data(), 0);
    if (!h.nonblank && !h.entry->re->Match(text, 0, text.size(), RE2::UNANCHORED, &sp, 1)) continue;
    fired[r] = 1;
    Evidence ev;
    ev.rule_id = rule.id;
    ev.dimension = rule.dimension;
    ev.label = rule.label;
    ev.subtype = rule.subtype;
    ev.field = h.field->kind;
    ev.field_index = h.field->index;
    ev.span_start = static_cast<std::size_t>(sp.data() - text.data());
    ev.span_end = ev.span_start + sp.size();
    ev.matched_text.assign(sp.data(), sp.size());
    ev.weight = rule.weight;
    out.evidence.push_back(std::move(ev));
  }

  out.decisions = decide(out.evidence);
  return out;
}

std::vector<Decision> Engine::decide(const std::vector<Evidence>& evidence,
                                     const std::vector<Vote>& extra) const {
  // Votes in rule order (then the extra ones), so that sums do not depend on field order.
  std::vector<std::pair<std::size_t, Vote>> votes;
  for (const Evidence& e : evidence) {
    auto it = rule_index_.find(e.rule_id);
    votes.push_back({it == rule_index_.end() ? rules_.rules.size() : it->second,
                     Vote{e.dimension, e.label, e.subtype, e.weight}});
  }
  std::stable_sort(votes.begin(), votes.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const Vote& v : extra) votes.push_back({rules_.rules.size() + 1, v});
  std::vector<Decision> out;
  for (const auto& dim : taxonomy_.dimensions()) {
    Decision d;
    d.dimension = dim.id;
    std::map<std::pair<std::string, std::string>, double> subtype_scores;
    for (const auto& [index, v] : votes) {
      if (v.dimension != dim.id) continue;
      d.scores[v.label] += v.weight;
      if (!v.subtype.empty()) subtype_scores[{v.label, v.subtype}] += v.weight;
    }
    std::string best, second;
    double s1 = 0, s2 = 0, positive = 0;
    for (const auto& [label, s] : d.scores) {
      if (s > 0) positive += s;
      if (best.empty() || s > s1) {
        second = best;
        s2 = s1;
        best = label;
        s1 = s;
      } else if (second.empty() || s > s2) {
        second = label;
        s2 = s;
      }
    }
    if (second.empty()) s2 = 0;
    DimensionSettings ds;
    auto it = rules_.settings.dimensions.find(dim.id);
    if (it != rules_.settings.dimensions.end()) ds = it->second;
    d.confidence = s1 > 0 ? s1 / (positive + rules_.settings.smoothing) : 0.0;
    bool ok = s1 > 0 && d.confidence >= ds.min_confidence &&
              (s1 - std::max(s2, 0.0)) >= ds.margin &&
              !(dim.abstain_label && best == *dim.abstain_label);
    if (ok) {
      d.label = best;
      double sub_best = 0;
      for (const auto& [key, s] : subtype_scores) {
        if (key.first == best && s > sub_best) {
          sub_best = s;
          d.subtype = key.second;
        }
      }
    } else {
      d.abstained = true;
      if (dim.abstain_label) d.label = *dim.abstain_label;
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace convfail::classifier
