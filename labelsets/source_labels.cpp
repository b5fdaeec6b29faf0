#include "labelsets/source_labels.h"

#include <algorithm>
#include <map>

#include "classifier/latest_run.h"
#include "classifier/run_labels.h"
#include "classifier/run_status.h"
#include "core/error.h"
#include "labeling/manual_labels.h"

namespace convfail::labelsets {

using labeling::LabelSource;

std::vector<std::string> label_sources(Db& db) {
  std::vector<std::string> out;
  if (classifier::latest_run_id(db) != 0) out.push_back("classifier");
  for (std::string& name : labeling::manual_annotators(db)) out.push_back(std::move(name));
  if (!labeling::load_consensus_labels(db).empty()) out.push_back("consensus");
  return out;
}

std::vector<IssueLabels> load_hybrid_labels(Db& db, const std::optional<std::string>& annotator,
                                            std::optional<double> min_confidence) {
  std::vector<IssueLabels> manual = annotator ? labeling::load_adjudicated_labels(db, *annotator)
                                              : labeling::load_consensus_labels(db);
  std::map<std::int64_t, std::size_t> by_id;
  std::vector<IssueLabels> out;
  for (auto& m : manual) {
    for (const auto& [dim, v] : m.values) m.origin[dim] = "manual";
    by_id[m.issue_id] = out.size();
    out.push_back(std::move(m));
  }
  // Automatic part: the latest run, calibrated confidence where stored.
  std::int64_t run = classifier::latest_run_id(db);
  if (run == 0) return out;
  const classifier::StoredCalibration calibration = classifier::stored_calibration(db, run);
  for (const auto& c : classifier::run_labels(db, run)) {
    auto slot = by_id.find(c.issue_id);
    IssueLabels* target = nullptr;
    for (const auto& [dim, value] : c.values) {
      if (dim == "subtype") continue;
      if (slot != by_id.end() && out[slot->second].values.count(dim)) continue;
      double confidence = c.confidence.count(dim) ? c.confidence.at(dim) : 0;
      std::optional<double> need = min_confidence;
      auto t = calibration.thresholds.find(dim);
      if (t != calibration.thresholds.end()) {
        auto p = calibration.probability.find({c.issue_id, dim});
        if (p != calibration.probability.end()) confidence = p->second;
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

std::optional<std::string> partial_label_set(Db& db, const LabelSource& src) {
  if (src.kind != LabelSource::Kind::kClassifier || !src.run) return std::nullopt;
  std::optional<classifier::RunStatus> status = classifier::run_status(db, *src.run);
  if (!status || !status->in_progress) return std::nullopt;
  return classifier::describe_unfinished(*status);
}

std::vector<IssueLabels> load_label_set(Db& db, const std::string& source,
                                        std::optional<double> min_confidence, bool allow_partial) {
  return load_label_set(db, LabelSource::parse(source), min_confidence, allow_partial);
}

std::vector<IssueLabels> load_label_set(Db& db, const LabelSource& src,
                                        std::optional<double> min_confidence, bool allow_partial) {
  if (!allow_partial)
    if (auto why = partial_label_set(db, src))
      throw UserError(*why +
                      "; its labels are partial (report --allow-partial shows them, "
                      "saying so)");
  std::vector<IssueLabels> out;
  const std::string source = src.text();
  switch (src.kind) {
    case LabelSource::Kind::kHybrid:
      out = load_hybrid_labels(
          db, src.annotator.empty() ? std::nullopt : std::optional<std::string>(src.annotator),
          min_confidence);
      break;
    case LabelSource::Kind::kClassifier:
      out = classifier::run_labels(db, src.run);
      break;
    case LabelSource::Kind::kConsensus:
      out = labeling::load_consensus_labels(db);
      break;
    case LabelSource::Kind::kAnnotator:
      out = labeling::load_annotator_labels(db, src.annotator);
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

}  // namespace convfail::labelsets
