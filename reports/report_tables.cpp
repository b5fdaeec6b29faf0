#include "reports/report_tables.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "core/text.h"

namespace convfail::reports {
namespace {

// "Abstained" / "Unlabeled" for the report's missing-label key; anything else as stored.
std::string missing_title(const std::string& id) {
  if (id == kAbstained) return "Abstained";
  if (id == kUnlabeled) return "Unlabeled";
  return id;
}

std::string title_of(const Taxonomy& tax, const std::string& dim, const std::string& id) {
  if (tax.has_dimension(dim))
    for (const auto& l : tax.dimension(dim).labels)
      if (l.id == id) return l.title;
  return missing_title(id);  // a value the taxonomy does not know prints as stored
}

std::string subtype_title(const Taxonomy& tax, const std::string& cause, const std::string& id) {
  for (const auto& l : tax.dimension("cause").labels)
    if (l.id == cause)
      for (const auto& s : l.subtypes)
        if (s.id == id) return s.title;
  return missing_title(id);
}

// Row labels in taxonomy order, then any unknown values present in the counts, then `missing`
// (the issues without a label) when there are any: a table of complete labels keeps the study's
// shape, and the JSON has the key either way.
std::vector<std::string> ordered_labels(const Taxonomy& tax, const std::string& dim,
                                        const std::map<std::string, Counts>& by_converter,
                                        const std::string& missing) {
  std::vector<std::string> ids = tax.label_ids(dim);
  bool any_missing = false;
  for (const auto& [conv, counts] : by_converter)
    for (const auto& [id, n] : counts)
      if (id == missing)
        any_missing = any_missing || n > 0;
      else if (std::find(ids.begin(), ids.end(), id) == ids.end())
        ids.push_back(id);
  if (any_missing) ids.push_back(missing);
  return ids;
}

// Whether any converter's cause-by-symptom count has `missing` as its cause (as_cause) or as
// its symptom.
bool cause_or_symptom_missing(const ReportData& d, bool as_cause) {
  for (const auto& [conv, by_cause] : d.cause_by_symptom)
    for (const auto& [cause, by_symptom] : by_cause)
      for (const auto& [symptom, n] : by_symptom)
        if (n > 0 && (as_cause ? cause : symptom) == d.missing) return true;
  return false;
}

long get(const Counts& c, const std::string& id) {
  auto it = c.find(id);
  return it == c.end() ? 0 : it->second;
}

std::string fmt3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

// Table 8 / 9: label by converter, with the total's share.
void label_by_converter(const ReportData& d, const Taxonomy& tax, const std::string& dim,
                        const std::map<std::string, Counts>& counts, const std::string& id,
                        const std::string& title, PrintedReport& out) {
  Table t{id, title, {tax.dimension(dim).title}, {}, ""};
  for (const auto& c : d.converters) t.header.push_back(c);
  t.header.push_back("Total");
  auto labels = ordered_labels(tax, dim, counts, d.missing);
  long grand = 0;
  for (const auto& [c, m] : counts)
    for (const auto& [l, n] : m) grand += n;
  BarChart chart{id, title, {}, d.converters, {}};
  std::vector<long> col_totals(d.converters.size(), 0);
  std::vector<TableValue>& tidy = out.tidy[id];
  for (const auto& l : labels) {
    std::vector<std::string> row{title_of(tax, dim, l)};
    std::vector<long> values;
    long sum = 0;
    for (std::size_t i = 0; i < d.converters.size(); ++i) {
      long n = get(counts.at(d.converters[i]), l);
      row.push_back(std::to_string(n));
      values.push_back(n);
      col_totals[i] += n;
      sum += n;
    }
    row.push_back(count_with_percent(sum, grand));
    for (std::size_t i = 0; i < values.size(); ++i)
      tidy.push_back({row[0], d.converters[i], std::to_string(values[i])});
    tidy.push_back({row[0], "Total", std::to_string(sum)});
    tidy.push_back({row[0], "Share of total", share(sum, grand)});
    t.rows.push_back(std::move(row));
    chart.categories.push_back(title_of(tax, dim, l));
    chart.values.push_back(std::move(values));
  }
  std::vector<std::string> total{"Total"};
  for (std::size_t i = 0; i < col_totals.size(); ++i) {
    total.push_back(std::to_string(col_totals[i]));
    tidy.push_back({"Total", d.converters[i], std::to_string(col_totals[i])});
  }
  total.push_back(count_with_percent(grand, grand));
  tidy.push_back({"Total", "Total", std::to_string(grand)});
  tidy.push_back({"Total", "Share of total", share(grand, grand)});
  t.rows.push_back(std::move(total));
  out.tables.push_back(std::move(t));
  out.charts.push_back(std::move(chart));
}

std::string joined(const std::vector<long>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? " / " : "") + std::to_string(v[i]);
  return s;
}

// Table 10: top causes (rest as Other) by Crash, Wrong Model, Other symptoms; cells a / b per
// converter.
void cause_by_symptom(const ReportData& d, const Taxonomy& tax, PrintedReport& out) {
  const std::vector<std::string> main_symptoms{"crash", "wrong_model"};
  auto top = top_causes(d, tax);
  std::vector<std::string> rows = top;
  rows.push_back("Other");
  // No cause: a row, no symptom: a column (when there are such issues), so the totals add up.
  const bool missing_row = cause_or_symptom_missing(d, true);
  const bool missing_col = cause_or_symptom_missing(d, false);
  if (missing_row) rows.push_back(d.missing);
  std::vector<std::string> cols = main_symptoms;
  cols.push_back("Other");
  if (missing_col) cols.push_back(d.missing);
  std::string convs;
  for (const auto& c : d.converters) convs += (convs.empty() ? "" : " / ") + c;

  Table t{"cause_by_symptom",
          "Cause by symptom (top five causes; cells " + convs + ")",
          {"Cause"},
          {},
          ""};
  for (const auto& s : main_symptoms) t.header.push_back(title_of(tax, "symptom", s));
  t.header.push_back("Other");
  if (missing_col) t.header.push_back(missing_title(d.missing));
  t.header.push_back("Total");
  BarChart chart{"cause_by_symptom", "Cause by converter (top five causes)", {}, d.converters, {}};

  auto in = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  // cell(cause_bin, symptom_bin) per converter
  auto cell = [&](const std::string* cause_bin, const std::string* symptom_bin) {
    std::vector<long> per(d.converters.size(), 0);
    for (std::size_t i = 0; i < d.converters.size(); ++i)
      for (const auto& [cause, by_symptom] : d.cause_by_symptom.at(d.converters[i])) {
        bool cause_ok = !cause_bin || (*cause_bin == "Other" ? !in(top, cause) && cause != d.missing
                                                             : cause == *cause_bin);
        if (!cause_ok) continue;
        for (const auto& [symptom, n] : by_symptom) {
          bool symptom_ok =
              !symptom_bin ||
              (*symptom_bin == "Other" ? !in(main_symptoms, symptom) && symptom != d.missing
                                       : symptom == *symptom_bin);
          if (symptom_ok) per[i] += n;
        }
      }
    return per;
  };
  // Tidy: one value per converter, in a column "Crash (torch.onnx)".
  std::vector<TableValue>& tidy = out.tidy["cause_by_symptom"];
  auto put = [&](const std::string& row, const std::string& column, const std::vector<long>& per) {
    for (std::size_t i = 0; i < per.size(); ++i)
      tidy.push_back({row, column + " (" + d.converters[i] + ")", std::to_string(per[i])});
    return joined(per);
  };
  for (const auto& r : rows) {
    std::vector<std::string> row{r == "Other" ? "Other" : title_of(tax, "cause", r)};
    for (std::size_t i = 0; i < cols.size(); ++i)
      row.push_back(put(row[0], t.header[i + 1], cell(&r, &cols[i])));
    auto total = cell(&r, nullptr);
    row.push_back(put(row[0], "Total", total));
    t.rows.push_back(std::move(row));
    chart.categories.push_back(t.rows.back()[0]);
    chart.values.push_back(total);
  }
  std::vector<std::string> total{"Total"};
  for (std::size_t i = 0; i < cols.size(); ++i)
    total.push_back(put("Total", t.header[i + 1], cell(nullptr, &cols[i])));
  total.push_back(put("Total", "Total", cell(nullptr, nullptr)));
  t.rows.push_back(std::move(total));
  out.tables.push_back(std::move(t));
  out.charts.push_back(std::move(chart));
}

void subtypes(const ReportData& d, const Taxonomy& tax, PrintedReport& out) {
  Table t{
      "subtype_by_converter", "Subtypes of incompatibility and type problems", {"Subtype"}, {}, ""};
  for (const auto& c : d.converters) t.header.push_back(c);
  t.header.push_back("Total");
  for (const auto& cause : tax.label_ids("cause")) {
    std::vector<std::string> subs = tax.subtype_ids(cause);
    bool without_subtype = false;  // issues of this cause without a subtype: a row of their own
    for (const auto& [conv, by_cause] : d.subtype_by_converter)
      if (by_cause.count(cause))
        without_subtype = without_subtype || get(by_cause.at(cause), d.missing) > 0;
    if (without_subtype) subs.push_back(d.missing);
    for (const auto& sub : subs) {
      std::vector<std::string> row{title_of(tax, "cause", cause) + ": " +
                                   subtype_title(tax, cause, sub)};
      long sum = 0;
      for (const auto& c : d.converters) {
        long n = 0;
        auto it = d.subtype_by_converter.find(c);
        if (it != d.subtype_by_converter.end() && it->second.count(cause))
          n = get(it->second.at(cause), sub);
        row.push_back(std::to_string(n));
        sum += n;
      }
      row.push_back(std::to_string(sum));
      t.rows.push_back(std::move(row));
    }
  }
  out.tables.push_back(std::move(t));
}

void trends(const ReportData& d, const Taxonomy& tax, PrintedReport& out) {
  Table t{
      "issues_by_period", std::string("Issues per converter per ") + d.period, {"Period"}, {}, ""};
  for (const auto& c : d.converters) t.header.push_back(c);
  for (const auto& cause : d.trend_causes)
    for (const auto& c : d.converters)
      t.header.push_back(title_of(tax, "cause", cause) + " (" + c + ")");
  BarChart chart{"issues_by_period", t.title, {}, d.converters, {}};
  // "unknown" (no date) sorts after the periods.
  std::vector<std::string> periods;
  for (const auto& [p, m] : d.issues_by_period)
    if (p != "unknown") periods.push_back(p);
  if (d.issues_by_period.count("unknown")) periods.push_back("unknown");
  for (const auto& p : periods) {
    std::vector<std::string> row{p};
    std::vector<long> values;
    for (const auto& c : d.converters) {
      long n = d.issues_by_period.at(p).count(c) ? d.issues_by_period.at(p).at(c) : 0;
      row.push_back(std::to_string(n));
      values.push_back(n);
    }
    for (const auto& cause : d.trend_causes)
      for (const auto& c : d.converters) {
        const auto& m = d.causes_by_period.at(p);
        row.push_back(std::to_string(m.count(c) ? get(m.at(c), cause) : 0));
      }
    t.rows.push_back(std::move(row));
    chart.categories.push_back(p);
    chart.values.push_back(std::move(values));
  }
  out.tables.push_back(std::move(t));
  out.charts.push_back(std::move(chart));
}

void agreement(const ReportData& d, const Taxonomy& tax, PrintedReport& out) {
  if (!d.compare_source) return;
  Table t{"agreement",
          "Agreement of " + d.source + " and " + *d.compare_source,
          {"Dimension", "Issues", "Agreement", "Cohen's kappa", "95% CI"},
          {},
          ""};
  Table diff{"differences",
             "Labels that differ most (" + d.source + " → " + *d.compare_source + ")",
             {"Dimension", d.source, *d.compare_source, "Issues"},
             {},
             ""};
  // Tidy: the interval's ends in their own columns; no agreement without issues.
  std::vector<TableValue>& tidy = out.tidy["agreement"];
  for (const auto& a : d.agreement) {
    const std::string dim = tax.dimension(a.dimension).title;
    tidy.push_back({dim, "Issues", std::to_string(a.n)});
    if (a.n == 0) {
      t.rows.push_back({dim, "0", "-", "-", "-"});
      continue;
    }
    t.rows.push_back({dim, std::to_string(a.n), fmt3(a.observed), fmt3(a.kappa),
                      "[" + fmt3(a.ci_low) + ", " + fmt3(a.ci_high) + "]"});
    tidy.push_back({dim, "Agreement", fmt3(a.observed)});
    tidy.push_back({dim, "Cohen's kappa", fmt3(a.kappa)});
    tidy.push_back({dim, "95% CI low", fmt3(a.ci_low)});
    tidy.push_back({dim, "95% CI high", fmt3(a.ci_high)});
    for (std::size_t i = 0; i < a.differences.size() && i < 5; ++i) {
      const auto& [x, y, n] = a.differences[i];
      diff.rows.push_back({tax.dimension(a.dimension).title, title_of(tax, a.dimension, x),
                           title_of(tax, a.dimension, y), std::to_string(n)});
    }
  }
  // Agreement with a model's own training issues is in-sample: say so, with the count.
  for (const TrainingOverlap& o : d.training_overlap) {
    if (o.trained_on == 0) continue;
    t.note += std::string(t.note.empty() ? "" : " ") + "In-sample: " + o.source +
              " (classifier run " + std::to_string(o.run_id) + ") used trained model " +
              std::to_string(o.model_id) + ", which was trained on " +
              std::to_string(o.trained_on) + " of the " + std::to_string(o.compared) +
              " compared issues; its agreement on them overstates how it does on new issues.";
    tidy.push_back({"Trained on (" + o.source + ")", "Issues", std::to_string(o.trained_on)});
  }
  out.tables.push_back(std::move(t));
  out.tables.push_back(std::move(diff));
}

long issues_of(const ReproOutcome& o) {
  return o.confirmed + o.other_failure + o.not_reproduced + o.not_runnable + o.not_run;
}

void repro(const ReportData& d, const Taxonomy& tax, PrintedReport& out) {
  if (!d.repro) return;
  Table t{"repro_by_symptom",
          "Labeled defects confirmed by re-execution (latest run per issue)",
          {"Symptom", "Confirmed", "Reproduced as other symptom", "Not reproduced", "Not runnable",
           "Not run"},
          {},
          "Confirmed: a crash reproduced for Crash, a wrong output for Wrong Model."};
  BarChart chart{"repro_by_symptom",
                 "Re-execution outcome by symptom",
                 {},
                 {"Confirmed", "Other symptom", "Not reproduced", "Not runnable"},
                 {}};
  std::vector<std::string> symptoms;
  for (const auto& [symptom, o] : *d.repro)
    if (symptom != d.missing) symptoms.push_back(symptom);
  auto none = d.repro->find(d.missing);  // no symptom: last, when there are such issues
  if (none != d.repro->end() && issues_of(none->second) > 0) symptoms.push_back(d.missing);
  for (const std::string& symptom : symptoms) {
    const ReproOutcome& o = d.repro->at(symptom);
    std::string title = title_of(tax, "symptom", symptom);
    t.rows.push_back({title, std::to_string(o.confirmed), std::to_string(o.other_failure),
                      std::to_string(o.not_reproduced), std::to_string(o.not_runnable),
                      std::to_string(o.not_run)});
    chart.categories.push_back(title);
    chart.values.push_back({o.confirmed, o.other_failure, o.not_reproduced, o.not_runnable});
  }
  out.tables.push_back(std::move(t));
  out.charts.push_back(std::move(chart));
}

void runtime_history(const ReportData& d, const Taxonomy& tax, PrintedReport& out) {
  if (d.runtime_history.empty()) return;
  Table t{"repro_runtime_history",
          "ONNX Runtime releases: fixed in / regressed in / still failing (convfail bisect)",
          {"Issue", "Symptom", "Model", "Releases", "Fixed in / regressed in / still failing"},
          {},
          "The latest bisect per model; not_runnable releases are never counted as fixed."};
  // Tidy: the releases' ends and each finding in their own columns (absent when unknown).
  std::vector<TableValue>& tidy = out.tidy["repro_runtime_history"];
  for (const auto& h : d.runtime_history) {
    t.rows.push_back({h.issue, h.symptom.empty() ? "-" : title_of(tax, "symptom", h.symptom),
                      h.model, h.from_version + ".." + h.to_version, runtime_history_text(h)});
    const std::string& row = h.issue;
    if (!h.symptom.empty()) tidy.push_back({row, "Symptom", title_of(tax, "symptom", h.symptom)});
    tidy.push_back({row, "Model", h.model});
    tidy.push_back({row, "From release", h.from_version});
    tidy.push_back({row, "To release", h.to_version});
    if (h.fixed_in) tidy.push_back({row, "Fixed in", *h.fixed_in});
    if (h.regressed_in) tidy.push_back({row, "Regressed in", *h.regressed_in});
    if (h.first_bad) tidy.push_back({row, "First failing", *h.first_bad});
    if (h.newest_known) tidy.push_back({row, "Newest known", *h.newest_known});
    tidy.push_back({row, "Still failing", h.still_failing ? "yes" : "no"});
  }
  out.tables.push_back(std::move(t));
}

}  // namespace

std::string share(long count, long total) {
  if (total <= 0) return "0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", static_cast<double>(count) / static_cast<double>(total));
  return buf;
}

std::string count_with_percent(long count, long total) {
  long pct = total > 0 ? (200 * count + total) / (2 * total) : 0;
  std::string text = std::to_string(pct) + "%";
  // Never "0%" for some nor "100%" for not all (2 of 1,724): one decimal, else "<0.1%".
  if (total > 0 && ((pct == 0 && count > 0) || (pct == 100 && count < total))) {
    long tenths = (2000 * count + total) / (2 * total);  // 0.1% steps, rounded half up
    if (count > 0 && tenths == 0)
      text = "<0.1%";
    else if (count < total && tenths == 1000)
      text = ">99.9%";
    else
      text = std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "%";
  }
  return std::to_string(count) + " (" + text + ")";
}

std::vector<std::string> top_causes(const ReportData& d, const Taxonomy& tax, std::size_t k) {
  std::map<std::string, long> totals;
  for (const auto& [conv, by_cause] : d.cause_by_symptom)
    for (const auto& [cause, by_symptom] : by_cause)
      for (const auto& [symptom, n] : by_symptom) totals[cause] += n;
  std::vector<std::string> order = tax.label_ids("cause");
  for (const auto& [cause, n] : totals)
    if (std::find(order.begin(), order.end(), cause) == order.end()) order.push_back(cause);
  // The taxonomy's catch-all cause is never a "top" cause: it always goes to the Other row,
  // as in the paper's Table 10.
  std::vector<std::string> seen;
  for (const auto& c : order)
    if (totals[c] > 0 && !tax.is_catch_all("cause", c) && c != d.missing) seen.push_back(c);
  std::stable_sort(seen.begin(), seen.end(), [&](const std::string& a, const std::string& b) {
    return totals[a] > totals[b];
  });
  if (seen.size() > k) seen.resize(k);
  return seen;
}

PrintedReport printed_report(const ReportData& d, const Taxonomy& tax) {
  PrintedReport out;
  out.title = "Converter failures by " + d.source + " (" + count_noun(d.issues, "issue");
  if (d.cells)
    out.title += "; " + std::to_string(d.cells->manual) + " labels manual, " +
                 std::to_string(d.cells->automatic) + " automatic";
  out.title += ")";
  for (const std::string& why : d.partial) out.title += " - PARTIAL: " + why;
  label_by_converter(d, tax, "stage", d.stage_by_converter, "stage_by_converter",
                     "Stage by converter", out);
  label_by_converter(d, tax, "symptom", d.symptom_by_converter, "symptom_by_converter",
                     "Symptom by converter", out);
  cause_by_symptom(d, tax, out);
  subtypes(d, tax, out);
  trends(d, tax, out);
  agreement(d, tax, out);
  repro(d, tax, out);
  runtime_history(d, tax, out);
  return out;
}

}  // namespace convfail::reports
