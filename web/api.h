// The JSON API behind `convfail serve`, independent of HTTP: each function reads its query
// parameters, works on one database connection and returns the JSON the page shows. Key names
// are the CLI's `--json` ones (issue summaries and details from core, label history rows as
// `labels history --json`, agreement as `agreement --json`, the report as `report --json`).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/db.h"
#include "core/taxonomy.h"

namespace convfail::web {

using Params = std::multimap<std::string, std::string>;  // query parameters (httplib::Params)

// An error answered with this HTTP status and {"error": message}.
class HttpError : public std::runtime_error {
 public:
  HttpError(int status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// GET /api/session: who is logged in, whether writes are allowed, the label sources, the
// annotate queues (labeling::annotate_queue_names) and the taxonomy (dimensions, labels, subtypes)
// the page needs for its pickers.
nlohmann::json session_json(Db& db, const Taxonomy& tax, const std::string& annotator,
                            bool readonly);

// GET /api/issues: q (search text as `search`;
// `fts=1`: FTS5 syntax), repo, converter, state, source
// (label source for label filters; default classifier), symptom, cause, stage, min_confidence,
// max_confidence, compare + agreement=agree|disagree, verdict, page (1-based), per_page (1..200).
nlohmann::json issues_json(Db& db, const Taxonomy& tax, const Params& params);

// GET /api/issues/{owner}/{repo}/{number}: `show --json` plus converter, classifier (latest run:
// labels with confidence, evidence with spans), facts, highlights (UTF-16 ranges of the
// evidence in title, body and each comment, for the page), history (label rows), current
// (annotator -> dimension -> value) and repro (verdict rows). Blind (the default: `blind=0`
// only from the adjudicate view): history and current hold the viewer's own labels only, so a
// rater is not anchored by the others ("blind": true in the answer).
nlohmann::json issue_json(Db& db, const Taxonomy& tax, const std::string& repo,
                          const std::string& number, const std::string& viewer, bool blind);

// GET /api/labels?repo=&number=[&annotator=]: the label history of one issue.
nlohmann::json label_history_json(Db& db, const Params& params);

// POST /api/labels: one answer of `annotator` as one append-only row. Body: {repo, number, kind:
// label | adjudication | skip | undo, dimension, value, note, row_id (undo: the row to undo)}, or
// several dimensions at once ({symptom, cause, subtype, stage, note}: one row per changed value).
// Values are checked against the taxonomy first (unknown -> 400, nothing written).
nlohmann::json post_label(Db& db, const Taxonomy& tax, const std::string& annotator,
                          const nlohmann::json& body);
// The same inside the caller's transaction (the server writes a batch of posts in one).
nlohmann::json append_label(Db& db, const Taxonomy& tax, const std::string& annotator,
                            const nlohmann::json& body);

// GET /api/queue: mode=annotate (queue: one of labeling::annotate_queue_names(); size, seed,
// repo, low_confidence; uncertainty=margin|entropy for the uncertain queue, which ranks by the
// latest trained model with the rules of `rules_dir`) or mode=adjudicate (annotators=A,B): the
// issues to label, in order, with the dimensions to ask.
nlohmann::json queue_json(Db& db, const Taxonomy& tax, const std::string& rules_dir,
                          const std::string& annotator, const Params& params);

// GET /api/issues/{owner}/{repo}/{number}/questions: the questions of one queue item in the
// order they are asked and the choices of each, by labeling's rule (labeling/question_order.h;
// the page asks these, never derives them): {repo, number, mode, cause (the cause the subtype
// question refers to, or null), questions: [{dimension, choices: [{id, title, definition,
// example}]}]}. Parameters: dimensions (the queue item's, comma-separated; none: every manual
// dimension), mode=annotate (default) or mode=adjudicate with annotators=A,B (as /api/queue),
// cause (the cause given but not stored yet: the adjudication form's choice). The cause given
// is `cause`, else, annotating, `viewer`'s current cause of the issue; adjudicating without
// one, A's current cause is the one the subtype refers to.
nlohmann::json questions_json(Db& db, const Taxonomy& tax, const std::string& repo,
                              const std::string& number, const std::string& viewer,
                              const Params& params);

// GET /api/agreement?a=&b=[&dimension=]: `agreement --json` between any two label sources
// (annotators, consensus, classifier[:RUN], hybrid[:ANNOTATOR]; labelsets::compute_agreement).
nlohmann::json agreement_json(Db& db, const Params& params);

// GET /api/report: source, compare, by, repo, since, until, min_confidence, format
// (json | md | csv | latex | html). Returns the text and its content type.
struct ReportText {
  std::string text, content_type, extension;
  std::string name;  // the download's file name without extension ("": the route's default)
};
ReportText report_text(Db& db, const Taxonomy& tax, const Params& params);
// A rendered report with the content type and file extension of its format (json | md | csv |
// latex | html, as reports::parse_report_format accepts).
ReportText typed_report(std::string text, const std::string& format);

// Annotator names: labeling::check_annotator_name's rule, the terminal's (1-100 bytes, no control
// character or ':', not a source keyword), in UTF-8. HttpError 400 else.
std::string checked_annotator(const std::string& name);

}  // namespace convfail::web
