#include "labeling/annotation_queue.h"

#include <algorithm>
#include <random>
#include <set>

#include "core/error.h"
#include "core/text.h"
#include "labeling/label_sets.h"
#include "labeling/manual_labels.h"

namespace convfail::labeling {
namespace {

struct Candidate {
  std::int64_t id;
  std::string repo;
};

// Issues (no pull requests) of `repos` (empty: all), by repository and number.
std::vector<Candidate> all_issues(Db& db, const std::vector<std::string>& repos) {
  std::string in;
  for (std::size_t k = 0; k < repos.size(); ++k) in += k ? ",?" : "?";
  Stmt st(db,
          "SELECT i.id, r.full_name FROM issues i JOIN repositories r ON r.id = i.repo_id "
          "WHERE i.is_pull_request = 0 " +
              (repos.empty() ? std::string() : "AND r.full_name IN (" + in + ") ") +
              "ORDER BY r.full_name, i.number");
  for (std::size_t k = 0; k < repos.size(); ++k) st.bind(static_cast<int>(k + 1), repos[k]);
  std::vector<Candidate> out;
  while (st.step()) out.push_back({st.int64(0), st.text(1)});
  return out;
}

std::set<std::int64_t> labeled_by(Db& db, const std::string& annotator) {
  std::set<std::int64_t> out;
  for (const IssueLabels& l : load_annotator_labels(db, annotator)) out.insert(l.issue_id);
  return out;
}

std::string split_join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    auto comma = text.find(',', start);
    out.push_back(
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// Stores `items` as the queue of session `id` from position `from` on.
void insert_items(Db& db, std::int64_t id, std::size_t from, const std::vector<QueueItem>& items) {
  Stmt item(db,
            "INSERT INTO annotation_queue_items(session_id, position, issue_id, dimensions) "
            "VALUES (?,?,?,?)");
  for (std::size_t i = 0; i < items.size(); ++i) {
    item.bind(1, id).bind(2, static_cast<std::int64_t>(from + i)).bind(3, items[i].issue_id);
    if (items[i].dimensions.empty())
      item.bind_null(4);
    else
      item.bind(4, split_join(items[i].dimensions));
    item.run();
  }
}

}  // namespace

std::vector<std::int64_t> stratified_sample(
    const std::map<std::string, std::vector<std::int64_t>>& groups, std::size_t size,
    std::uint64_t seed) {
  std::size_t total = 0;
  for (const auto& [key, ids] : groups) total += ids.size();
  size = std::min(size, total);
  if (size == 0) return {};
  // Largest-remainder allocation.
  std::map<std::string, std::size_t> quota;
  std::vector<std::pair<double, std::string>> remainders;
  std::size_t given = 0;
  for (const auto& [key, ids] : groups) {
    double exact = static_cast<double>(size) * ids.size() / total;
    quota[key] = static_cast<std::size_t>(exact);
    given += quota[key];
    remainders.emplace_back(exact - quota[key], key);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = 0; given < size && i < remainders.size(); ++i, ++given)
    ++quota[remainders[i].second];
  // mt19937_64's output is fixed by the standard (unlike the std distributions).
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> out;
  for (const auto& [key, ids] : groups) {
    std::vector<std::int64_t> pool = ids;
    for (std::size_t i = 0; i < quota[key]; ++i) {
      std::size_t j = i + static_cast<std::size_t>(rng() % (pool.size() - i));
      std::swap(pool[i], pool[j]);
      out.push_back(pool[i]);
    }
  }
  return out;
}

const std::vector<std::string>& annotate_queue_names() {
  static const std::vector<std::string> kNames = {"unlabeled", "low-confidence", "disagreement",
                                                  "sample", "uncertain"};
  return kNames;
}

std::vector<QueueItem> build_annotate_queue(Db& db, const std::string& annotator,
                                            const QueueOptions& options) {
  const std::string& q = options.queue;
  if (q != "unlabeled" && q != "low-confidence" && q != "disagreement" && q != "sample")
    throw UsageError("queue " + quoted_excerpt(q) +
                     ": labeling builds unlabeled, low-confidence, disagreement and sample");
  std::vector<Candidate> issues = all_issues(db, options.repos);
  std::vector<std::int64_t> ids;
  if (q == "sample") {
    std::map<std::string, std::vector<std::int64_t>> groups;
    for (const auto& c : issues) groups[c.repo].push_back(c.id);
    // The draw depends only on the issues and the seed; issues already labeled are then left
    // out, so a finished sample is not walked again.
    std::set<std::int64_t> done = labeled_by(db, annotator);
    for (auto id : stratified_sample(groups, options.size.value_or(20), options.seed))
      if (!done.count(id)) ids.push_back(id);
  } else {
    std::set<std::int64_t> done = labeled_by(db, annotator);
    std::vector<Candidate> open;
    for (const auto& c : issues)
      if (!done.count(c.id)) open.push_back(c);
    if (q == "unlabeled") {
      for (const auto& c : open) ids.push_back(c.id);
    } else if (q == "low-confidence") {
      const std::vector<IssueLabels>& run = options.classifier;
      if (run.empty()) throw UserError("no classifier run: run `convfail classify` first");
      std::map<std::int64_t, double> lowest;
      for (const auto& l : run) {
        double m = 1.0;
        for (const auto& [dim, c] : l.confidence) m = std::min(m, c);
        lowest[l.issue_id] = m;
      }
      std::vector<std::pair<double, std::int64_t>> ranked;  // stable: ties keep repo/number order
      for (const auto& c : open) {
        auto it = lowest.find(c.id);
        if (it != lowest.end() && it->second < options.low_confidence)
          ranked.emplace_back(it->second, c.id);
      }
      std::stable_sort(ranked.begin(), ranked.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (const auto& [conf, id] : ranked) ids.push_back(id);
    } else {  // disagreement
      // issue -> dimension -> distinct values over the other annotators and the classifier
      std::map<std::int64_t, std::map<std::string, std::set<std::string>>> values;
      for (const auto& name : manual_annotators(db)) {
        if (name == annotator) continue;
        for (const auto& l : load_annotator_labels(db, name))
          for (const auto& [dim, v] : l.values) values[l.issue_id][dim].insert(v);
      }
      for (const auto& l : options.classifier)
        for (const auto& [dim, v] : l.values) values[l.issue_id][dim].insert(v);
      for (const auto& c : open) {
        auto it = values.find(c.id);
        if (it == values.end()) continue;
        bool split_opinion = std::any_of(it->second.begin(), it->second.end(),
                                         [](const auto& kv) { return kv.second.size() > 1; });
        if (split_opinion) ids.push_back(c.id);
      }
    }
    if (options.size && ids.size() > static_cast<std::size_t>(*options.size))
      ids.resize(*options.size);
  }
  std::vector<QueueItem> out;
  for (auto id : ids) out.push_back({id, {}});
  return out;
}

std::vector<QueueItem> build_adjudication_queue(Db& db, const std::vector<std::string>& annotators,
                                                const std::string& adjudicator) {
  if (annotators.size() < 2) throw UsageError("--annotators needs at least two names (A,B)");
  std::vector<std::map<std::int64_t, std::map<std::string, std::string>>> labels;
  for (const auto& name : annotators) {
    auto& m = labels.emplace_back();
    for (const auto& l : load_annotator_labels(db, name)) m[l.issue_id] = l.values;
  }
  // What the adjudicator already decided: (issue, dimension).
  std::set<std::pair<std::int64_t, std::string>> decided;
  {
    Stmt st(db,
            "SELECT issue_id, dimension FROM current_manual_labels WHERE annotator = ? "
            "AND kind = 'adjudication'");
    st.bind(1, adjudicator);
    while (st.step()) decided.emplace(st.int64(0), st.text(1));
  }
  // Issues in repository/number order.
  std::vector<QueueItem> out;
  for (const auto& c : all_issues(db, {})) {
    std::vector<std::string> dims;
    for (const auto& dim : manual_dimensions()) {
      std::set<std::string> seen;
      bool all = true;
      for (const auto& m : labels) {
        auto it = m.find(c.id);
        if (it == m.end() || !it->second.count(dim)) {
          all = false;
          break;
        }
        seen.insert(it->second.at(dim));
      }
      if (all && seen.size() > 1 && !decided.count({c.id, dim})) dims.push_back(dim);
    }
    if (!dims.empty()) out.push_back({c.id, dims});
  }
  return out;
}

std::optional<StoredSession> find_latest_session(Db& db, const std::string& annotator,
                                                 const std::string& mode, const std::string& queue,
                                                 const std::string& params) {
  Stmt st(db,
          "SELECT max(id) FROM annotation_sessions WHERE annotator=? AND mode=? AND queue=? "
          "AND params=?");
  st.bind(1, annotator).bind(2, mode).bind(3, queue).bind(4, params);
  if (!st.step() || st.is_null(0)) return std::nullopt;
  return load_session(db, st.int64(0));
}

StoredSession create_session(Db& db, const std::string& annotator, const std::string& mode,
                             const std::string& queue, const std::string& params,
                             const std::vector<QueueItem>& items) {
  Transaction tx(db);
  Stmt ins(db, "INSERT INTO annotation_sessions(annotator, mode, queue, params) VALUES (?,?,?,?)");
  ins.bind(1, annotator).bind(2, mode).bind(3, queue).bind(4, params);
  ins.run();
  std::int64_t id = db.last_insert_id();
  insert_items(db, id, 0, items);
  tx.commit();
  return load_session(db, id);
}

void replace_session_tail(Db& db, std::int64_t id, std::size_t from,
                          const std::vector<QueueItem>& tail) {
  Transaction tx(db);
  Stmt del(db, "DELETE FROM annotation_queue_items WHERE session_id=? AND position>=?");
  del.bind(1, id).bind(2, static_cast<std::int64_t>(from));
  del.run();
  insert_items(db, id, from, tail);
  tx.commit();
}

StoredSession load_session(Db& db, std::int64_t id) {
  Stmt st(db, "SELECT annotator, mode, queue, params FROM annotation_sessions WHERE id=?");
  st.bind(1, id);
  if (!st.step()) throw UserError("no annotation session " + std::to_string(id));
  StoredSession s;
  s.id = id;
  s.annotator = st.text(0);
  s.mode = st.text(1);
  s.queue = st.text(2);
  s.params = st.text(3);
  Stmt items(db,
             "SELECT issue_id, dimensions FROM annotation_queue_items WHERE session_id=? "
             "ORDER BY position");
  items.bind(1, id);
  while (items.step()) s.items.push_back({items.int64(0), split(items.text(1))});
  return s;
}

}  // namespace convfail::labeling
