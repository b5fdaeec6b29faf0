#include "labeling/label_sets.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

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

// Collects rows (issue_id, repo, number, created_at, dimension, value[, confidence]) into
// IssueLabels in issue order.
std::vector<IssueLabels> collect(Stmt& st, bool with_confidence) {
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

}  // namespace

std::vector<IssueLabels> load_annotator_labels(Db& db, const std::string& annotator) {
  // The latest row per (issue, dimension) wins (view current_manual_labels): a skip clears the
  // value, an undo restores the value it carries.
  Stmt st(db,
          "SELECT i.id, r.full_name, i.number, i.created_at, c.dimension, c.value "
          "FROM current_manual_labels c "
          "JOIN issues i ON i.id = c.issue_id JOIN repositories r ON r.id = i.repo_id "
          "WHERE c.annotator = ?1 ORDER BY r.full_name, i.number, c.dimension");
  st.bind(1, annotator);
  auto out = collect(st, false);
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
      } else if (v.values.size() >= 2 &&
                 std::all_of(v.values.begin(), v.values.end(),
                             [&](const std::string& x) { return x == v.values.front(); })) {
        out[i].values[dim] = v.values.front();
      }
    }
    if (!out[i].values.empty()) kept.push_back(std::move(out[i]));
  }
  return kept;
}

std::vector<IssueLabels> load_classifier_labels(Db& db, std::optional<std::int64_t> run_id) {
  std::int64_t run =
      run_id ? *run_id
             : db.scalar("SELECT coalesce(max(id), 0) FROM classifier_runs WHERE in_progress = 0");
  if (run == 0) return {};
  Stmt st(db,
          "SELECT i.id, r.full_name, i.number, i.created_at, c.dimension, c.label, c.confidence "
          "FROM classifier_labels c "
          "JOIN issues i ON i.id = c.issue_id JOIN repositories r ON r.id = i.repo_id "
          "WHERE c.run_id = ? ORDER BY r.full_name, i.number, c.dimension");
  st.bind(1, run);
  auto out = collect(st, true);
  // Subtypes ride along with the cause row.
  Stmt sub(db,
           "SELECT issue_id, subtype FROM classifier_labels WHERE run_id=? AND dimension='cause' "
           "AND subtype IS NOT NULL");
  sub.bind(1, run);
  std::map<std::int64_t, std::string> subtypes;
  while (sub.step()) subtypes[sub.int64(0)] = sub.text(1);
  for (auto& l : out) {
    auto it = subtypes.find(l.issue_id);
    if (it != subtypes.end()) l.values["subtype"] = it->second;
  }
  return out;
}

std::vector<std::string> label_sources(Db& db) {
  std::vector<std::string> out;
  if (db.scalar("SELECT count(*) FROM classifier_runs WHERE in_progress = 0") > 0)
    out.push_back("classifier");
  Stmt st(db, "SELECT DISTINCT annotator FROM manual_labels ORDER BY annotator");
  while (st.step()) out.push_back(st.text(0));
  if (!load_consensus_labels(db).empty()) out.push_back("consensus");
  return out;
}

std::vector<IssueLabels> load_hybrid_labels(Db& db, const std::optional<std::string>& annotator,
                                            std::optional<double> min_confidence) {
  // Manual part.
  std::vector<IssueLabels> manual;
  if (annotator) {
    Stmt known(db, "SELECT count(*) FROM manual_labels WHERE annotator = ?");
    known.bind(1, *annotator);
    known.step();
    if (known.int64(0) == 0)
      throw UserError("hybrid:" + *annotator + ": annotator \"" + *annotator +
                      "\" has no manual labels");
    // Per issue and dimension: the latest adjudication, else the annotator's current label.
    Stmt st(db,
            "SELECT i.id, r.full_name, i.number, i.created_at, c.dimension, c.value, "
            "  c.kind = 'adjudication', c.annotator = ?1 "
            "FROM current_manual_labels c "
            "JOIN issues i ON i.id = c.issue_id JOIN repositories r ON r.id = i.repo_id "
            "WHERE c.value IS NOT NULL AND (c.kind = 'adjudication' OR c.annotator = ?1) "
            "ORDER BY r.full_name, i.number, c.dimension, c.row_id");
    st.bind(1, *annotator);
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
  } else {
    manual = load_consensus_labels(db);
  }
  std::map<std::int64_t, std::size_t> by_id;
  std::vector<IssueLabels> out;
  for (auto& m : manual) {
    for (const auto& [dim, v] : m.values) m.origin[dim] = "manual";
    by_id[m.issue_id] = out.size();
    out.push_back(std::move(m));
  }
  // Automatic part: the latest run, calibrated confidence where stored.
  std::int64_t run =
      db.scalar("SELECT coalesce(max(id), 0) FROM classifier_runs WHERE in_progress = 0");
  if (run == 0) return out;
  std::map<std::string, std::optional<double>> thresholds;  // calibrated dimensions
  {
    Stmt st(db, "SELECT dimension, threshold FROM classifier_calibrations WHERE run_id = ?");
    st.bind(1, run);
    while (st.step())
      thresholds[st.text(0)] = st.is_null(1) ? std::nullopt : std::optional<double>(st.real(1));
  }
  std::map<std::pair<std::int64_t, std::string>, double> calibrated;
  {
    Stmt st(db,
            "SELECT issue_id, dimension, probability FROM classifier_calibrated WHERE run_id = ?");
    st.bind(1, run);
    while (st.step()) calibrated[{st.int64(0), st.text(1)}] = st.real(2);
  }
  for (const auto& c : load_classifier_labels(db, run)) {
    auto slot = by_id.find(c.issue_id);
    IssueLabels* target = nullptr;
    for (const auto& [dim, value] : c.values) {
      if (dim == "subtype") continue;
      if (slot != by_id.end() && out[slot->second].values.count(dim)) continue;
      double confidence = c.confidence.count(dim) ? c.confidence.at(dim) : 0;
      std::optional<double> need = min_confidence;
      auto t = thresholds.find(dim);
      if (t != thresholds.end()) {
        auto p = calibrated.find({c.issue_id, dim});
        if (p != calibrated.end()) confidence = p->second;
        if (!need) need = t->second;
        if (!need) continue;  // calibrated, target accuracy never reached
      }
      if (confidence < need.value_or(kDefaultRawMinConfidence)) continue;
      if (!target) {
        if (slot == by_id.end()) {
          IssueLabels l = c;
          l.values.clear();
          l.confidence.clear();
          slot = by_id.emplace(c.issue_id, out.size()).first;
          out.push_back(std::move(l));
        }
        target = &out[slot->second];
      }
      target->values[dim] = value;
      target->origin[dim] = "automatic";
      target->confidence[dim] = confidence;
      if (dim == "cause" && c.values.count("subtype")) {
        target->values["subtype"] = c.values.at("subtype");
        target->origin["subtype"] = "automatic";
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const IssueLabels& a, const IssueLabels& b) {
    return a.repo != b.repo ? a.repo < b.repo : a.number < b.number;
  });
  return out;
}

OriginCounts count_origins(const std::vector<IssueLabels>& labels) {
  OriginCounts n;
  for (const auto& l : labels)
    for (const auto& [dim, origin] : l.origin) {
      if (dim == "subtype") continue;
      (origin == "manual" ? n.manual : n.automatic) += 1;
    }
  return n;
}

std::vector<IssueLabels> load_label_set(Db& db, const std::string& source,
                                        std::optional<double> min_confidence) {
  return load_label_set(db, LabelSource::parse(source), min_confidence);
}

std::vector<IssueLabels> load_label_set(Db& db, const LabelSource& src,
                                        std::optional<double> min_confidence) {
  std::vector<IssueLabels> out;
  const std::string source = src.text();
  switch (src.kind) {
    case LabelSource::Kind::kHybrid:
      out = load_hybrid_labels(
          db, src.annotator.empty() ? std::nullopt : std::optional<std::string>(src.annotator),
          min_confidence);
      break;
    case LabelSource::Kind::kClassifier:
      out = load_classifier_labels(db, src.run);
      break;
    case LabelSource::Kind::kConsensus:
      out = load_consensus_labels(db);
      break;
    case LabelSource::Kind::kAnnotator:
      out = load_annotator_labels(db, src.annotator);
      break;
  }
  if (out.empty()) {
    std::string names;
    for (const auto& s : label_sources(db)) names += (names.empty() ? "" : ", ") + s;
    throw UserError("no labels from source \"" + source + "\"; sources with labels: " +
                    (names.empty() ? "none (run classify, label or labels import)" : names));
  }
  return out;
}

}  // namespace convfail::labeling
