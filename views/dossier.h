// One issue as a person sees it, built once for both front ends: the terminal's annotation view
// (cli/issue_view renders it) and the web's issue page (web/api serves dossier_json, which
// `convfail show --json` prints too). Each part comes from its owner's reader: the issue from
// core, the latest classifier run's labels, evidence and facts from classifier/issue_output, the
// label history and current labels from labeling's ManualLabels, the repro runs and latest
// verdicts from repro/verdict_store.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "classifier/issue_output.h"
#include "core/db.h"
#include "core/issue_queries.h"
#include "core/issue_ref.h"
#include "core/json_util.h"
#include "core/taxonomy.h"
#include "labeling/manual_labels.h"
#include "repro/verdict_store.h"
#include "views/highlight.h"

namespace convfail::views {

struct IssueDossier {
  IssueDetail issue;      // with comments and timeline
  std::string converter;  // of its repository (taxonomy)
  // The latest complete classify run's output for the issue; none before any run.
  std::optional<classifier::IssueRunOutput> classifier;
  struct Highlights {
    std::vector<HighlightRange> title, body;
    std::vector<std::vector<HighlightRange>> comments;  // one per comment, in order
  } highlights;
  // Blind: history and current hold the viewer's labels only (a rater not anchored by others).
  bool blind = false;
  std::vector<labeling::ManualLabelRow> history;         // oldest first
  std::vector<labeling::ManualLabels::Current> current;  // by annotator, dimension
  std::vector<repro::StoredReproRun> repro;              // every run, as stored
  std::vector<repro::StoredVerdict> verdicts;            // the latest per program re-run
};

struct DossierOptions {
  // Set: blind, only this viewer's labels (an empty name sees none). Unset: every annotator's.
  std::optional<std::string> blind_viewer;
};

// nullopt when the issue is not stored.
std::optional<IssueDossier> build_dossier(Db& db, const Taxonomy& tax, const IssueRef& ref,
                                          const DossierOptions& options = {});
std::optional<IssueDossier> build_dossier(Db& db, const Taxonomy& tax, std::int64_t issue_id,
                                          const DossierOptions& options = {});

// `show --json` and GET /api/issues/{owner}/{repo}/{number}: the issue's `to_json` plus
// converter, classifier (run_id, dimensions: label, subtype, confidence, probability; evidence
// with spans; execution), facts, highlights (UTF-16 [start, end, rules] per title, body and
// comment), history (as `labels history --json`), blind, current (annotator -> dimension ->
// {value, kind}), repro (every run) and verdicts (the latest per program).
Json dossier_json(const IssueDossier& d);

}  // namespace convfail::views
