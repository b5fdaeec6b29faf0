#include "reports/report_data.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/error.h"
#include "core/text.h"
#include "labelsets/agreement_report.h"
#include "labelsets/source_labels.h"
#include "repro/verdicts.h"

namespace convfail::reports {
namespace {

Counts zeros(const std::vector<std::string>& ids) {
  Counts c;
  for (const auto& id : ids) c[id] = 0;
  return c;
}

// "2020" or "2020-Q3"; "unknown" without a usable date.
std::string period_of(const std::optional<std::string>& created, const std::string& period) {
  if (!created || created->size() < 4) return "unknown";
  std::string year = created->substr(0, 4);
  if (period == "year") return year;
  if (created->size() < 7) return "unknown";
  int month = std::atoi(created->substr(5, 2).c_str());
  if (month < 1 || month > 12) return "unknown";
  return year + "-Q" + std::to_string((month - 1) / 3 + 1);
}

bool keep(const labeling::IssueLabels& l, const ReportOptions& o) {
  if (!o.repos.empty()) {
    bool match = std::any_of(o.repos.begin(), o.repos.end(),
                             [&](const std::string& r) { return lower(r) == lower(l.repo); });
    if (!match) return false;
  }
  if (o.since || o.until) {
    if (!l.created_at || l.created_at->size() < 10) return false;
    std::string day = l.created_at->substr(0, 10);
    if (o.since && day < *o.since) return false;
    if (o.until && day > *o.until) return false;
  }
  return true;
}

const std::string* value_of(const labeling::IssueLabels& l, const std::string& dim) {
  auto it = l.values.find(dim);
  return it == l.values.end() || it->second.empty() ? nullptr : &it->second;
}

void add_agreement(Db& db, const Taxonomy& tax, const std::vector<labeling::IssueLabels>& labels,
                   ReportData& out, const ReportOptions& opts) {
  const std::vector<TrainedSource>& trained = opts.trained;
  auto other =
      labelsets::load_label_set(db, *out.compare_source, opts.min_confidence, opts.allow_partial);
  std::map<std::int64_t, const labeling::IssueLabels*> by_id;
  for (const auto& l : other) by_id[l.issue_id] = &l;
  const labelsets::LabelsByIssue mine = labelsets::labels_by_issue(labels);
  const labelsets::LabelsByIssue theirs = labelsets::labels_by_issue(other);
  for (const auto& dim : tax.dimensions()) {
    labelsets::PairAgreement p =
        labelsets::pair_agreement(out.source, mine, *out.compare_source, theirs, dim.id);
    SourceAgreement a;
    a.dimension = dim.id;
    a.n = p.kappa.n;
    if (a.n > 0) {
      a.observed = p.kappa.observed;
      a.kappa = p.kappa.kappa;
      a.ci_low = p.kappa.ci_low;
      a.ci_high = p.kappa.ci_high;
    }
    // The disagreements: the confusion table off its diagonal.
    const labeling::ConfusionMatrix& m = p.matrix;
    for (std::size_t i = 0; i < m.labels.size(); ++i)
      for (std::size_t j = 0; j < m.labels.size(); ++j)
        if (i != j && m.counts[i][j] > 0)
          a.differences.emplace_back(m.labels[i], m.labels[j], m.counts[i][j]);
    std::stable_sort(a.differences.begin(), a.differences.end(),
                     [](const auto& x, const auto& y) { return std::get<2>(x) > std::get<2>(y); });
    out.agreement.push_back(std::move(a));
  }
  // A source labeled by a trained model agrees with the gold it was trained on in-sample: count
  // the compared issues that were among its training issues.
  std::set<std::string> compared;
  for (const auto& l : labels)
    if (by_id.count(l.issue_id)) compared.insert(lower(l.repo) + "#" + std::to_string(l.number));
  for (const TrainedSource& t : trained) {
    if (t.source != out.source && t.source != *out.compare_source) continue;
    TrainingOverlap o{t.source, t.run_id, t.model_id, static_cast<long>(compared.size()), 0};
    std::set<std::string> seen;
    for (const std::string& key : t.issues)
      if (compared.count(lower(key)) && seen.insert(lower(key)).second) ++o.trained_on;
    out.training_overlap.push_back(o);
  }
}

void add_repro(const Taxonomy& tax, const std::vector<labeling::IssueLabels>& labels,
               const std::map<std::int64_t, std::string>& verdicts, ReportData& out) {
  if (verdicts.empty()) return;  // the latest run per issue decides
  std::map<std::string, ReproOutcome> outcome;
  for (const auto& s : tax.label_ids("symptom")) outcome[s];
  outcome[out.missing];
  for (const auto& l : labels) {
    const std::string* symptom = value_of(l, "symptom");
    ReproOutcome& o = outcome[symptom ? *symptom : out.missing];
    auto it = verdicts.find(l.issue_id);
    if (it == verdicts.end()) {
      ++o.not_run;
    } else if (it->second == repro::kCrashReproduced ||
               it->second == repro::kWrongOutputReproduced) {
      bool match =
          symptom && ((it->second == repro::kCrashReproduced && *symptom == "crash") ||
                      (it->second == repro::kWrongOutputReproduced && *symptom == "wrong_model"));
      ++(match ? o.confirmed : o.other_failure);
    } else if (it->second == repro::kNotReproduced) {
      ++o.not_reproduced;
    } else {
      ++o.not_runnable;  // not_runnable, or a verdict this version does not know
    }
  }
  out.repro = std::move(outcome);
}

// The latest bisect of each model of each labeled issue.
void add_runtime_history(const std::vector<labeling::IssueLabels>& labels,
                         const std::vector<RuntimeHistory>& histories, ReportData& out) {
  std::map<std::int64_t, std::string> symptoms;
  for (const auto& l : labels) {
    const std::string* symptom = value_of(l, "symptom");
    symptoms[l.issue_id] = symptom ? *symptom : std::string();
  }
  for (const RuntimeHistory& h : histories) {
    auto it = symptoms.find(h.issue_id);
    if (h.issue_id == 0 || it == symptoms.end()) continue;  // a group's, or not in this report
    out.runtime_history.push_back(h);
    out.runtime_history.back().symptom = it->second;
  }
}

}  // namespace

std::string runtime_history_text(const RuntimeHistory& h) {
  if (!h.newest_known) return "no verdict in " + h.from_version + ".." + h.to_version;
  if (h.still_failing) {
    std::string s = "still failing in " + *h.newest_known;
    if (h.regressed_in)
      s = "regressed in " + *h.regressed_in + ", " + s;
    else if (h.first_bad)
      s += " (since " + *h.first_bad + " or before)";
    return s;
  }
  if (h.fixed_in) {
    std::string s = "fixed in " + *h.fixed_in;
    if (h.regressed_in) s = "regressed in " + *h.regressed_in + ", " + s;
    return s;
  }
  if (h.regressed_in) return "regressed in " + *h.regressed_in;
  return "passes " + h.from_version + ".." + *h.newest_known;
}

bool is_iso_date(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  int month = std::atoi(s.substr(5, 2).c_str()), day = std::atoi(s.substr(8, 2).c_str());
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

std::vector<labeling::IssueLabels> report_labels(Db& db, const ReportOptions& o) {
  for (const auto* d : {&o.since, &o.until})
    if (*d && !is_iso_date(**d)) throw UsageError("not a date (YYYY-MM-DD): " + **d);
  if (o.since && o.until && *o.since > *o.until)
    throw UsageError("--since " + *o.since + " is after --until " + *o.until);
  const labeling::LabelSource source = labeling::LabelSource::parse(o.source);
  if (o.compare) labeling::LabelSource::parse(*o.compare);  // refused before any work
  if (o.period != "year" && o.period != "quarter")
    throw UsageError("--by must be year or quarter, not " + o.period);
  std::vector<labeling::IssueLabels> labels;
  for (auto& l : labelsets::load_label_set(db, source, o.min_confidence, o.allow_partial))
    if (keep(l, o)) labels.push_back(std::move(l));
  if (labels.empty())
    throw UserError("no issues labeled by \"" + o.source + "\" match --repo/--since/--until");
  return labels;
}

ReportData build_report(Db& db, const Taxonomy& tax, const ReportOptions& o) {
  const labeling::LabelSource source = labeling::LabelSource::parse(o.source);
  std::vector<labeling::IssueLabels> labels = report_labels(db, o);

  ReportData r;
  r.source = o.source;
  r.compare_source = o.compare;
  for (const std::string* s : {&o.source, o.compare ? &*o.compare : nullptr})
    if (s)
      if (auto why = labelsets::partial_label_set(db, labeling::LabelSource::parse(*s)))
        r.partial.push_back(*why);
  r.period = o.period;
  r.issues = static_cast<long>(labels.size());
  r.missing = source.classifier() ? kAbstained : kUnlabeled;
  if (source.hybrid()) r.cells = labelsets::count_origins(labels);
  r.trend_causes = {"incompatibility", "type_problem"};
  // Every dimension's labels and `missing`, so that each count adds up to the issues.
  auto with_missing = [&](std::vector<std::string> ids) {
    ids.push_back(r.missing);
    return ids;
  };
  const auto stages = with_missing(tax.label_ids("stage")),
             symptoms = with_missing(tax.label_ids("symptom")),
             causes = with_missing(tax.label_ids("cause"));

  std::set<std::string> converters;
  for (const auto& l : labels) converters.insert(tax.converter_for_repo(l.repo));
  r.converters.assign(converters.begin(), converters.end());
  for (const auto& c : r.converters) {
    r.issues_by_converter[c] = 0;
    r.stage_by_converter[c] = zeros(stages);
    r.symptom_by_converter[c] = zeros(symptoms);
    for (const auto& cause : causes) {
      r.cause_by_symptom[c][cause] = zeros(symptoms);
      auto subs = tax.subtype_ids(cause);
      if (!subs.empty()) r.subtype_by_converter[c][cause] = zeros(with_missing(subs));
    }
  }

  for (const auto& l : labels) {
    const std::string conv = tax.converter_for_repo(l.repo);
    ++r.issues_by_converter[conv];
    const std::string *stage = value_of(l, "stage"), *symptom = value_of(l, "symptom"),
                      *cause = value_of(l, "cause"), *subtype = value_of(l, "subtype");
    const std::string& missing = r.missing;
    ++r.stage_by_converter[conv][stage ? *stage : missing];
    ++r.symptom_by_converter[conv][symptom ? *symptom : missing];
    ++r.cause_by_symptom[conv][cause ? *cause : missing][symptom ? *symptom : missing];
    if (cause && !tax.subtype_ids(*cause).empty())
      ++r.subtype_by_converter[conv][*cause][subtype ? *subtype : missing];

    std::string period = period_of(l.created_at, o.period);
    auto& row = r.issues_by_period[period];
    auto& cause_row = r.causes_by_period[period];
    for (const auto& c : r.converters) {
      row.try_emplace(c, 0);
      if (!cause_row.count(c)) cause_row[c] = zeros(r.trend_causes);
    }
    ++row[conv];
    if (cause && std::count(r.trend_causes.begin(), r.trend_causes.end(), *cause))
      ++cause_row[conv][*cause];
  }

  if (o.compare) add_agreement(db, tax, labels, r, o);
  add_repro(tax, labels, o.verdicts, r);
  add_runtime_history(labels, o.histories, r);
  return r;
}

}  // namespace convfail::reports
