#include "labeling/label_sets.h"

#include <algorithm>

#include "core/error.h"

namespace convfail::labeling {
namespace {

// The position in `out` of the current row's issue (columns 0-3: id, repo, number, created_at),
// appended on first sight.
std::size_t issue_slot(const Stmt& st, std::vector<IssueLabels>& out,
                       std::map<std::int64_t, std::size_t>& index) {
  std::int64_t id = st.int64(0);
  auto it = index.find(id);
  if (it != index.end()) return it->second;
  IssueLabels l;
  l.issue_id = id;
  l.repo = st.text(1);
  l.number = st.int64(2);
  l.created_at = st.opt_text(3);
  index.emplace(id, out.size());
  out.push_back(std::move(l));
  return out.size() - 1;
}

}  // namespace

std::vector<IssueLabels> collect_label_rows(Stmt& st, bool with_confidence) {
  std::vector<IssueLabels> out;
  std::map<std::int64_t, std::size_t> index;
  while (st.step()) {
    IssueLabels& l = out[issue_slot(st, out, index)];
    std::string dim = st.text(4);
    if (!st.is_null(5)) l.values[dim] = st.text(5);
    if (with_confidence) l.confidence[dim] = st.real(6);
  }
  return out;
}

std::vector<IssueLabels> load_annotator_labels(Db& db, const std::string& annotator) {
  // The latest row per (issue, dimension) wins (view current_manual_labels): a skip clears the
  // value, an undo restores the value it carries.
  Stmt st(db,
          "SELECT i.id, r.full_name, i.number, i.created_at, c.dimension, c.value "
          "FROM current_manual_labels c "
          "JOIN issues i ON i.id = c.issue_id JOIN repositories r ON r.id = i.repo_id "
          "WHERE c.annotator = ?1 ORDER BY r.full_name, i.number, c.dimension");
  st.bind(1, annotator);
  auto out = collect_label_rows(st, false);
  // Issues whose every dimension was cleared hold no labels.
  std::vector<IssueLabels> kept;
  for (auto& l : out)
    if (!l.values.empty()) kept.push_back(std::move(l));
  return kept;
}

std::vector<IssueLabels> load_consensus_labels(Db& db) {
  // Per issue and dimension: the latest adjudication row (of any adjudicator) if there is one,
  // else the value when at least two annotators hold a current label and all of them agree.
  Stmt st(db,
          "SELECT i.id, r.full_name, i.number, i.created_at, c.dimension, c.annotator, c.value, "
          "  c.kind = 'adjudication', c.row_id "
          "FROM current_manual_labels c "
          "JOIN issues i ON i.id = c.issue_id JOIN repositories r ON r.id = i.repo_id "
          "WHERE c.value IS NOT NULL ORDER BY r.full_name, i.number, c.dimension, c.row_id");
  struct Votes {
    std::optional<std::string> adjudicated;
    std::int64_t adjudicated_row = 0;
    std::vector<std::string> values;
  };
  std::vector<IssueLabels> out;
  std::vector<std::map<std::string, Votes>> votes;
  std::map<std::int64_t, std::size_t> index;
  while (st.step()) {
    std::size_t slot = issue_slot(st, out, index);
    if (slot == votes.size()) votes.emplace_back();
    Votes& v = votes[slot][st.text(4)];
    if (st.int64(7)) {
      if (st.int64(8) > v.adjudicated_row) {
        v.adjudicated = st.text(6);
        v.adjudicated_row = st.int64(8);
      }
    } else {
      v.values.push_back(st.text(6));
    }
  }
  std::vector<IssueLabels> kept;
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (const auto& [dim, v] : votes[i]) {
      if (v.adjudicated) {
        out[i].values[dim] = *v.adjudicated;
      } else if (v.values.size() >= 2 &&  // all the same (no lambda: it may not capture `v`)
                 std::count(v.values.begin(), v.values.end(), v.values.front()) ==
                     static_cast<std::ptrdiff_t>(v.values.size())) {
        out[i].values[dim] = v.values.front();
      }
    }
    if (!out[i].values.empty()) kept.push_back(std::move(out[i]));
  }
  return kept;
}

std::vector<IssueLabels> load_adjudicated_labels(Db& db, const std::string& annotator) {
  std::vector<IssueLabels> manual;
  Stmt known(db, "SELECT count(*) FROM manual_labels WHERE annotator = ?");
  known.bind(1, annotator);
  known.step();
  if (known.int64(0) == 0)
    throw UserError("hybrid:" + annotator + ": annotator \"" + annotator +
                    "\" has no manual labels");
  // Per issue and dimension: the latest adjudication, else the annotator's current label.
  Stmt st(db,
          "SELECT i.id, r.full_name, i.number, i.created_at, c.dimension, c.value, "
          "  c.kind = 'adjudication', c.annotator = ?1 "
          "FROM current_manual_labels c "
          "JOIN issues i ON i.id = c.issue_id JOIN repositories r ON r.id = i.repo_id "
          "WHERE c.value IS NOT NULL AND (c.kind = 'adjudication' OR c.annotator = ?1) "
          "ORDER BY r.full_name, i.number, c.dimension, c.row_id");
  st.bind(1, annotator);
  std::map<std::int64_t, std::size_t> index;
  std::vector<std::map<std::string, bool>> adjudicated;
  while (st.step()) {
    std::size_t slot = issue_slot(st, manual, index);
    if (slot == adjudicated.size()) adjudicated.emplace_back();
    std::string dim = st.text(4);
    bool adj = st.int64(6) != 0;
    // Rows come in row order: a later adjudication replaces anything, the annotator's label
    // fills only what no adjudication holds.
    if (adj || !adjudicated[slot][dim]) manual[slot].values[dim] = st.text(5);
    if (adj) adjudicated[slot][dim] = true;
  }
  return manual;
}

}  // namespace convfail::labeling
