#include "views/issue_selection.h"

#include <algorithm>
#include <set>

#include "labelsets/source_labels.h"
#include "repro/verdict_store.h"

namespace convfail::views {

SelectedIssues select_issues(Db& db, const IssueSelection& sel) {
  SelectedIssues out;
  std::optional<std::set<std::int64_t>> ids;
  if (sel.verdict) {
    std::vector<std::int64_t> v = repro::issues_with_verdict(db, *sel.verdict);
    ids.emplace(v.begin(), v.end());
  }
  if (sel.source) {
    std::map<std::int64_t, labeling::IssueLabels> other;
    if (sel.compare)
      for (auto& l : labelsets::load_label_set(db, *sel.compare)) other[l.issue_id] = std::move(l);
    std::set<std::int64_t> labeled;
    for (auto& l : labelsets::load_label_set(db, *sel.source)) {
      bool ok = true;
      for (const auto& [dim, value] : sel.labels) {
        auto v = l.values.find(dim);
        if (v == l.values.end() || v->second != value) ok = false;
      }
      if (sel.min_confidence || sel.max_confidence) {
        if (l.confidence.empty()) ok = false;
        double lowest = 1;
        for (const auto& [dim, c] : l.confidence) lowest = std::min(lowest, c);
        if ((sel.min_confidence && lowest < *sel.min_confidence) ||
            (sel.max_confidence && lowest > *sel.max_confidence))
          ok = false;
      }
      if (sel.agree) {
        auto o = other.find(l.issue_id);
        int shared = 0, differ = 0;
        if (o != other.end())
          for (const auto& [dim, value] : l.values) {
            auto v = o->second.values.find(dim);
            if (v == o->second.values.end()) continue;
            ++shared;
            if (v->second != value) ++differ;
          }
        if (shared == 0 || *sel.agree != (differ == 0)) ok = false;
      }
      if (!ok || (ids && !ids->count(l.issue_id))) continue;
      labeled.insert(l.issue_id);
      out.labels[l.issue_id] = std::move(l);
    }
    ids = std::move(labeled);
  }
  if (ids) out.ids.emplace(ids->begin(), ids->end());
  return out;
}

}  // namespace convfail::views
