// The study's tables computed as data from one label source: full (unbinned) counts, no
// formatting. report_tables.h turns them into printable tables; render_*.cpp print them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"
#include "core/taxonomy.h"
#include "labelsets/source_labels.h"
#include "repro/runtime_history.h"

namespace convfail::reports {

// The latest `convfail bisect` of one model (repro's vocabulary, read by repro/bisect_history).
using RuntimeHistory = repro::RuntimeHistory;

// A label source whose classifier run used a trained model, with the model's training issues
// ("owner/name#N"): given by the caller, since reports do not read the classifier's tables.
struct TrainedSource {
  std::string source;  // as in ReportOptions::source or compare
  std::int64_t run_id = 0;
  std::int64_t model_id = 0;
  std::vector<std::string> issues;
};

struct ReportOptions {
  std::string source = "jajal2024";
  std::vector<std::string> repos;        // empty: every repository with labels
  std::optional<std::string> since;      // YYYY-MM-DD, inclusive, on the issue's created_at
  std::optional<std::string> until;      // YYYY-MM-DD, inclusive
  std::string period = "year";           // year | quarter (section 5)
  std::optional<std::string> compare;    // a second source (section 6)
  std::optional<double> min_confidence;  // hybrid sources: confidence an automatic label needs
  // An unfinished classifier run (classify running or killed) as source or compare source:
  // refused unless this is set; then the report says it is partial (ReportData::partial).
  bool allow_partial = false;
  std::vector<TrainedSource> trained;  // sources labeled by a trained model (for compare)
  // Section 7, given by the caller since reports do not read repro's tables: each issue's latest
  // repro verdict (repro::latest_issue_verdicts; none: no section 7) and the stored bisects
  // (repro::runtime_histories).
  std::map<std::int64_t, std::string> verdicts;
  std::vector<RuntimeHistory> histories;
};

using Counts = std::map<std::string, long>;  // label -> count, every taxonomy label present

// The key under which a table counts the issues that have no label on a dimension, so that every
// table adds up to the report's issues: a classifier run abstained on them (stage abstains as
// its own label, counted as such); an annotator, the consensus or the hybrid left them unlabeled.
inline constexpr const char* kAbstained = "abstained";
inline constexpr const char* kUnlabeled = "unlabeled";

// Agreement of two sources on one dimension (section 6).
struct SourceAgreement {
  std::string dimension;
  long n = 0;  // issues labeled on this dimension by both
  double observed = 0;
  double kappa = 0, ci_low = 0, ci_high = 0;
  // (label in source, label in compare source, count), most frequent first, disagreements only.
  std::vector<std::tuple<std::string, std::string, long>> differences;
};

// A compared source labeled by a trained model: how many of the compared issues (labeled by both
// sources) the model was trained on. The agreement on those is in-sample.
struct TrainingOverlap {
  std::string source;
  std::int64_t run_id = 0, model_id = 0;
  long compared = 0;    // issues labeled by both sources
  long trained_on = 0;  // of them, issues in the model's training set
};

// Re-execution outcome of labeled defects of one symptom (section 7).
struct ReproOutcome {
  long confirmed = 0;      // verdict matches the symptom
  long other_failure = 0;  // reproduced, but as the other symptom
  long not_reproduced = 0;
  long not_runnable = 0;
  long not_run = 0;  // labeled, no repro run
};

// "fixed in 1.21.0", "still failing in 1.31.1 (since 1.14.0 or before)", "regressed in 1.18.0,
// still failing in 1.31.1", "passes 1.14.0..1.31.1", "no verdict in A..B".
std::string runtime_history_text(const RuntimeHistory& h);

struct ReportData {
  std::string source;
  // One line per source that is an unfinished classifier run (with --allow-partial).
  std::vector<std::string> partial;
  std::optional<std::string> compare_source;
  std::string period;                   // year | quarter
  std::vector<std::string> converters;  // sorted
  long issues = 0;                      // labeled issues in the report
  // kAbstained or kUnlabeled: the extra label of every count below (symptom, cause, stage and
  // subtype of a cause that has subtypes), present even when 0, for issues without that label.
  std::string missing = kUnlabeled;
  std::optional<labelsets::OriginCounts> cells;  // hybrid source: manual vs automatic cells
  std::map<std::string, long> issues_by_converter;
  std::map<std::string, Counts> stage_by_converter;    // converter -> stage -> n
  std::map<std::string, Counts> symptom_by_converter;  // converter -> symptom -> n
  // converter -> cause -> symptom -> n (either may be `missing`)
  std::map<std::string, std::map<std::string, Counts>> cause_by_symptom;
  // converter -> cause (with subtypes) -> subtype -> n
  std::map<std::string, std::map<std::string, Counts>> subtype_by_converter;
  // period ("2020" or "2020-Q3", "unknown" without a date) -> converter -> n
  std::map<std::string, std::map<std::string, long>> issues_by_period;
  // period -> converter -> cause -> n, for the causes in trend_causes
  std::map<std::string, std::map<std::string, Counts>> causes_by_period;
  std::vector<std::string> trend_causes;                     // incompatibility, type_problem
  std::vector<SourceAgreement> agreement;                    // filled with compare
  std::vector<TrainingOverlap> training_overlap;             // with compare: model-labeled sources
  std::optional<std::map<std::string, ReproOutcome>> repro;  // symptom -> outcome, when runs exist
  std::vector<RuntimeHistory> runtime_history;  // labeled issues with a bisect, by issue
};

// Loads the label source (UserError naming the existing sources when it is empty), filters it
// and counts. Throws UsageError for a malformed date or period.
ReportData build_report(Db& db, const Taxonomy& taxonomy, const ReportOptions& options);

// The issues a report counts: the label set of options.source (UserError naming the existing
// sources when it is empty) kept by --repo/--since/--until (UserError when none is left). Throws
// UsageError for a malformed date or period.
std::vector<labeling::IssueLabels> report_labels(Db& db, const ReportOptions& options);

// "YYYY-MM-DD" check used for --since/--until.
bool is_iso_date(const std::string& s);

}  // namespace convfail::reports
