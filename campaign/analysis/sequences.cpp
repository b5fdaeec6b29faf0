#include "campaign/analysis/sequences.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace convfail::campaign {

std::string sequence_text(const std::vector<std::string>& ops) {
  std::string s;
  for (const auto& op : ops) s += (s.empty() ? "" : " > ") + op;
  return s;
}

std::vector<std::vector<int>> simple_paths(const OpGraph& g, std::size_t max_paths, bool* capped) {
  if (capped) *capped = false;
  const std::size_t n = g.ops.size();
  std::vector<int> indegree(n, 0);
  for (const auto& s : g.succ)
    for (int w : s) ++indegree[static_cast<std::size_t>(w)];
  std::vector<std::vector<int>> out;
  std::vector<char> on_path(n, 0);
  // Dead ends (a cycle closing on the path) cost steps without a path: bound them too.
  const std::size_t max_steps = (max_paths + 1) * (n + 1) * 4;
  std::size_t steps = 0;
  for (std::size_t s = 0; s < n; ++s) {
    if (indegree[s] != 0) continue;
    std::vector<std::pair<int, std::size_t>> stack{{static_cast<int>(s), 0}};
    std::vector<int> path{static_cast<int>(s)};
    on_path[s] = 1;
    auto pop = [&] {
      on_path[static_cast<std::size_t>(stack.back().first)] = 0;
      stack.pop_back();
      path.pop_back();
    };
    while (!stack.empty()) {
      const int v = stack.back().first;
      const auto& next = g.succ[static_cast<std::size_t>(v)];
      if (next.empty()) {
        if (out.size() == max_paths || ++steps > max_steps) {
          if (capped) *capped = true;
          return out;
        }
        out.push_back(path);
        pop();
        continue;
      }
      std::size_t& k = stack.back().second;
      if (k == next.size()) {
        pop();
        continue;
      }
      const int w = next[k++];
      if (on_path[static_cast<std::size_t>(w)]) continue;
      if (++steps > max_steps) {
        if (capped) *capped = true;
        return out;
      }
      on_path[static_cast<std::size_t>(w)] = 1;
      stack.emplace_back(w, 0);
      path.push_back(w);
    }
  }
  return out;
}

bool contains_walk(const OpGraph& g, const std::vector<std::string>& ops) {
  if (ops.empty()) return false;
  const std::size_t n = g.ops.size();
  std::vector<char> cur(n, 0), next(n, 0);
  bool any = false;
  for (std::size_t v = 0; v < n; ++v)
    if (g.ops[v] == ops[0]) cur[v] = 1, any = true;
  for (std::size_t i = 1; i < ops.size() && any; ++i) {
    std::fill(next.begin(), next.end(), 0);
    any = false;
    for (std::size_t v = 0; v < n; ++v) {
      if (!cur[v]) continue;
      for (int w : g.succ[v])
        if (g.ops[static_cast<std::size_t>(w)] == ops[i])
          next[static_cast<std::size_t>(w)] = 1, any = true;
    }
    cur.swap(next);
  }
  return any;
}

std::set<std::string> edge_ngrams(const OpGraph& g, int min_n, int max_n, std::size_t max_walks,
                                  bool* capped) {
  if (capped) *capped = false;
  std::set<std::string> out;
  std::size_t walks = 0;
  const std::size_t n = g.ops.size();
  std::vector<char> on_walk(n, 0);
  std::vector<std::string> ops;
  std::vector<std::pair<int, std::size_t>> stack;
  for (std::size_t s = 0; s < n; ++s) {
    stack.assign(1, {static_cast<int>(s), 0});
    ops.assign(1, g.ops[s]);
    on_walk[s] = 1;
    while (!stack.empty()) {
      const int v = stack.back().first;
      const auto& next = g.succ[static_cast<std::size_t>(v)];
      std::size_t& k = stack.back().second;
      if (static_cast<int>(stack.size()) == max_n || k == next.size()) {
        on_walk[static_cast<std::size_t>(v)] = 0;
        stack.pop_back();
        ops.pop_back();
        continue;
      }
      const int w = next[k++];
      if (on_walk[static_cast<std::size_t>(w)]) continue;
      if (++walks > max_walks) {
        if (capped) *capped = true;
        for (const auto& [u, _] : stack) on_walk[static_cast<std::size_t>(u)] = 0;
        return out;
      }
      on_walk[static_cast<std::size_t>(w)] = 1;
      stack.emplace_back(w, 0);
      ops.push_back(g.ops[static_cast<std::size_t>(w)]);
      if (static_cast<int>(ops.size()) >= min_n) out.insert(sequence_text(ops));
    }
  }
  return out;
}

namespace {

// A block of operator ids as a hashable key (the ids' bytes).
std::string key_of(const std::vector<int>& path, std::size_t at, std::size_t len) {
  return std::string(reinterpret_cast<const char*>(path.data() + at), len * sizeof(int));
}

std::vector<int> ids_of(const std::string& key) {
  std::vector<int> ids(key.size() / sizeof(int));
  std::memcpy(ids.data(), key.data(), ids.size() * sizeof(int));
  return ids;
}

// One model's distinct paths as operator ids.
struct Paths {
  std::vector<std::vector<int>> paths;
  std::vector<std::vector<char>> hit;  // per path and start: the block there is frequent
};

// Operator names as dense ids, and each model's distinct simple paths in those ids.
class PathIndex {
 public:
  Paths paths_of(const OpGraph& g, std::size_t max_paths, SequenceStudy& out) {
    bool capped = false;
    std::set<std::vector<int>> distinct;
    for (const auto& p : simple_paths(g, max_paths, &capped)) {
      std::vector<int> ids;
      for (int v : p) ids.push_back(id_of(g.ops[static_cast<std::size_t>(v)]));
      distinct.insert(std::move(ids));
    }
    out.capped_models += capped;
    out.paths += static_cast<long>(distinct.size());
    Paths m;
    m.paths.assign(distinct.begin(), distinct.end());
    for (const auto& p : m.paths) m.hit.emplace_back(p.size(), 1);
    return m;
  }

  // The findings of blocks (keys with their support), in sequence-text order.
  std::vector<SequenceFinding> findings(
      const std::vector<std::pair<std::string, long>>& blocks) const {
    std::vector<SequenceFinding> v;
    for (const auto& [k, n] : blocks) {
      std::vector<std::string> ops;
      for (int id : ids_of(k)) ops.push_back(names_[static_cast<std::size_t>(id)]);
      v.push_back({std::move(ops), n});
    }
    std::sort(v.begin(), v.end(), [](const SequenceFinding& a, const SequenceFinding& b) {
      return sequence_text(a.ops) < sequence_text(b.ops);
    });
    return v;
  }

 private:
  int id_of(const std::string& op) {
    auto [it, fresh] = vocab_.emplace(op, static_cast<int>(names_.size()));
    if (fresh) names_.push_back(it->first);
    return it->second;
  }
  std::map<std::string, int> vocab_;
  std::vector<std::string> names_;
};

// The blocks of mismatched paths, one length at a time (apriori): frequent blocks of each
// length, which of them also sit on correct paths, and from those the maximal, only-mismatched
// and reduced blocks and the mismatched models holding a block no correct path has.
class BlockMiner {
 public:
  BlockMiner(std::vector<Paths> bad, std::vector<Paths> good, const SequenceOptions& options)
      : bad_(std::move(bad)),
        good_(std::move(good)),
        options_(options),
        min_len_(std::max<std::size_t>(options.min_block, 1)),
        holding_(bad_.size(), 0) {}

  void run() {
    for (std::size_t len = min_len_; len <= options_.max_block; ++len)
      if (!level(len)) return;
    // Blocks still frequent at max_block count as maximal.
    for (const auto& [k, n] : previous_) add_maximal(k, n);
  }

  std::vector<std::pair<std::string, long>> maximal, only, reduced;
  long holding() const { return std::count(holding_.begin(), holding_.end(), 1); }

 private:
  // A block of length `len` at `at` can be frequent only if the shorter ones at `at` and
  // `at + 1` are (apriori); hit[at] holds that for the previous length.
  bool candidate(const Paths& m, std::size_t p, std::size_t at, std::size_t len) const {
    return len == min_len_ || (m.hit[p][at] && m.hit[p][at + 1]);
  }

  void add_maximal(const std::string& k, long n) {
    maximal.emplace_back(k, n);
    if (!previous_on_correct_.count(k)) only.emplace_back(k, n);
  }

  // One length: false when no block of it is frequent (longer ones cannot be either).
  bool level(std::size_t len) {
    std::vector<std::unordered_set<std::string>> local(bad_.size());
    std::unordered_map<std::string, long> frequent = frequent_blocks(len, local);
    close_maximal(len, frequent);
    if (frequent.empty()) {
      previous_.clear();
      return false;
    }
    std::unordered_set<std::string> on_correct;
    mark(bad_, len, frequent, nullptr);
    mark(good_, len, frequent, &on_correct);
    for (const auto& [k, n] : frequent) {
      if (on_correct.count(k)) continue;
      if (len == min_len_ || (previous_on_correct_.count(k.substr(0, (len - 1) * sizeof(int))) &&
                              previous_on_correct_.count(k.substr(sizeof(int)))))
        reduced.emplace_back(k, n);
    }
    for (std::size_t i = 0; i < bad_.size(); ++i)
      if (!holding_[i])
        for (const auto& k : local[i])
          if (frequent.count(k) && !on_correct.count(k)) {
            holding_[i] = 1;
            break;
          }
    previous_ = std::move(frequent);
    previous_on_correct_ = std::move(on_correct);
    return true;
  }

  // The blocks of this length on at least min_support mismatched models; `local` gets each
  // model's candidate blocks.
  std::unordered_map<std::string, long> frequent_blocks(
      std::size_t len, std::vector<std::unordered_set<std::string>>& local) const {
    std::unordered_map<std::string, long> support;
    for (std::size_t i = 0; i < bad_.size(); ++i) {
      for (std::size_t p = 0; p < bad_[i].paths.size(); ++p) {
        const auto& path = bad_[i].paths[p];
        for (std::size_t at = 0; at + len <= path.size(); ++at)
          if (candidate(bad_[i], p, at, len)) local[i].insert(key_of(path, at, len));
      }
      for (const auto& k : local[i]) ++support[k];
    }
    std::unordered_map<std::string, long> frequent;
    for (const auto& [k, n] : support)
      if (n >= options_.min_support) frequent.emplace(k, n);
    return frequent;
  }

  // Blocks of the previous length that no frequent block of this length extends are maximal.
  void close_maximal(std::size_t len, const std::unordered_map<std::string, long>& frequent) {
    if (len == min_len_) return;
    std::unordered_set<std::string> extended;
    for (const auto& kv : frequent) {
      extended.insert(kv.first.substr(0, (len - 1) * sizeof(int)));
      extended.insert(kv.first.substr(sizeof(int)));
    }
    for (const auto& [k, n] : previous_)
      if (!extended.count(k)) add_maximal(k, n);
  }

  // Marks where frequent blocks sit on the models' paths; `seen` gets those found.
  void mark(std::vector<Paths>& models, std::size_t len,
            const std::unordered_map<std::string, long>& frequent,
            std::unordered_set<std::string>* seen) const {
    for (auto& m : models)
      for (std::size_t p = 0; p < m.paths.size(); ++p) {
        const auto& path = m.paths[p];
        std::vector<char> hit(path.size() >= len ? path.size() - len + 1 : 0, 0);
        for (std::size_t at = 0; at < hit.size(); ++at)
          if (candidate(m, p, at, len)) {
            std::string k = key_of(path, at, len);
            if (frequent.count(k)) {
              hit[at] = 1;
              if (seen) seen->insert(std::move(k));
            }
          }
        m.hit[p] = std::move(hit);
      }
  }

  std::vector<Paths> bad_, good_;
  const SequenceOptions& options_;
  const std::size_t min_len_;
  std::vector<char> holding_;
  std::unordered_map<std::string, long> previous_;       // frequent blocks one shorter, support
  std::unordered_set<std::string> previous_on_correct_;  // those on a correct path
};

}  // namespace

SequenceStudy sequence_study(const std::vector<const OpGraph*>& mismatched,
                             const std::vector<const OpGraph*>& correct,
                             const SequenceOptions& options) {
  SequenceStudy out;
  out.mismatched_models = static_cast<long>(mismatched.size());
  out.correct_models = static_cast<long>(correct.size());
  PathIndex index;
  std::vector<Paths> bad, good;
  for (const auto* g : mismatched) bad.push_back(index.paths_of(*g, options.max_paths, out));
  for (const auto* g : correct) good.push_back(index.paths_of(*g, options.max_paths, out));
  BlockMiner miner(std::move(bad), std::move(good), options);
  miner.run();
  out.common_blocks = index.findings(miner.maximal);
  out.reduced = index.findings(miner.reduced);
  out.only_mismatched = index.findings(miner.only);
  out.mismatched_holding = miner.holding();
  return out;
}

}  // namespace convfail::campaign
