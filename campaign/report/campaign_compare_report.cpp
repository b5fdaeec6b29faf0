#include "campaign/report/campaign_compare_report.h"

#include "core/json_util.h"
#include "core/text.h"

using nlohmann::json;

namespace convfail::campaign {
namespace {

using reports::Table;
using Tidy = std::vector<reports::TableValue>;

std::string side_title(const CompareSide& s) {
  return s.label + " (campaign " + std::to_string(s.campaign) +
         (s.db.empty() ? "" : " of " + s.db) + ")";
}

std::string outcome_counts(const std::map<std::string, int>& m) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : m) parts.push_back(k + " " + std::to_string(v));
  return parts.empty() ? "-" : join(parts, ", ");
}

Table differences_table(const Comparison& c, Tidy& tidy) {
  Table t;
  t.id = "differences";
  t.title = "What differs: configuration and versions";
  t.header = {"Setting", side_title(c.a), side_title(c.b)};
  for (const auto& d : c.differences) {
    t.rows.push_back({d.setting, d.a, d.b});
    tidy.push_back({d.setting, "A", d.a});
    tidy.push_back({d.setting, "B", d.b});
  }
  if (c.differences.empty()) t.note = "Nothing: the same configuration and the same versions.";
  return t;
}

Table models_table(const Comparison& c) {
  Table t;
  t.id = "models";
  t.title = "Models";
  t.header = {"Models", "Count"};
  auto row = [&](const std::string& label, long n) {
    t.rows.push_back({label, std::to_string(n)});
  };
  row("in A", static_cast<long>(c.a.models.size()));
  row("in B", static_cast<long>(c.b.models.size()));
  row("in both", c.matched);
  row("in both: the same exported model", c.by_hash);
  row("in both: the same plan position and name", c.by_position);
  row("in both: the same name", c.by_name);
  row("only in A", c.only_a);
  row("only in B", c.only_b);
  row("in both, not comparable (one side did not run it)", c.not_comparable);
  row("outcome changed", c.changed);
  row("success in A, failing in B", c.regressed);
  row("groups new in B", c.count("new"));
  row("groups fixed in B", c.count("fixed"));
  row("groups still failing", c.count("still"));
  row("groups failing another way on the other side", c.count("changed"));
  row("groups not comparable", c.count("not_comparable"));
  std::string unfinished;
  if (support_draw(c.a.config) != support_draw(c.b.config))
    unfinished +=
        " The campaigns drew their synthetic models from different support matrices, so a plan "
        "position holds different programs on each side: synthetic models are matched by their "
        "exported model only. To gate one release against another, run both with --unfiltered.";
  for (const CompareSide* s : {&c.a, &c.b})
    if (!s->finished)
      unfinished += " Campaign " + s->label +
                    " is not finished: its groups are made once every planned model is stored, "
                    "so a gate on it would pass on nothing.";
  t.note = (c.no_change() ? "No change: every model in both has the same outcome and the failure "
                            "groups are the same."
                          : "Changes: " + std::to_string(c.changed) + " models changed outcome, " +
                                std::to_string(c.count("new")) + " new groups, " +
                                std::to_string(c.count("fixed")) + " fixed groups.") +
           unfinished;
  return t;
}

Table transitions_table(const Comparison& c, Tidy& tidy) {
  Table t;
  t.id = "transitions";
  t.title = "Outcome in A -> outcome in B (models in both)";
  t.header = {"In A", "In B", "Models", "Examples"};
  for (const auto& x : c.transitions) {
    t.rows.push_back({x.from, x.to, std::to_string(x.models), join(x.examples, ", ")});
    const std::string row = x.from + " -> " + x.to;
    tidy.push_back({row, "In A", x.from});
    tidy.push_back({row, "In B", x.to});
    tidy.push_back({row, "Models", std::to_string(x.models)});
    for (const auto& e : x.examples) tidy.push_back({row, "Example", e});
  }
  return t;
}

std::string id_text(const std::optional<std::int64_t>& id) {
  return id ? std::to_string(*id) : "-";
}

std::string status_text(const std::string& status) {
  return status == "new"       ? "new in B"
         : status == "fixed"   ? "fixed in B"
         : status == "still"   ? "still failing"
         : status == "changed" ? "failing another way"
                               : "not comparable";
}

Table groups_table(const Comparison& c, Tidy& tidy) {
  Table t;
  t.id = "groups";
  t.title = "Failure groups matched by outcome and signature";
  t.header = {"Status",      "Outcome",     "Failure (its representative's message)",
              "Models in A", "Models in B", "Representative",
              "Group in A",  "Group in B",  "Those models on the other side",
              "Grouping key"};
  for (std::size_t i = 0; i < c.groups.size(); ++i) {
    const auto& g = c.groups[i];
    std::string other = outcome_counts(g.other_side);
    if (!g.reasons.empty()) other += "; not comparable: " + outcome_counts(g.reasons);
    t.rows.push_back({status_text(g.status), g.outcome, g.message, std::to_string(g.size_a),
                      std::to_string(g.size_b), g.representative.empty() ? "-" : g.representative,
                      id_text(g.id_a), id_text(g.id_b), other, g.signature});
    const std::string row = std::to_string(i + 1);
    tidy.push_back({row, "Status", g.status});
    tidy.push_back({row, "Outcome", g.outcome});
    tidy.push_back({row, "Message", g.message});
    tidy.push_back({row, "Signature", g.signature});
    tidy.push_back({row, "Models in A", std::to_string(g.size_a)});
    tidy.push_back({row, "Models in B", std::to_string(g.size_b)});
    if (!g.representative.empty()) tidy.push_back({row, "Representative", g.representative});
    if (g.id_a) tidy.push_back({row, "Group in A", std::to_string(*g.id_a)});
    if (g.id_b) tidy.push_back({row, "Group in B", std::to_string(*g.id_b)});
    for (const auto& [k, v] : g.other_side)
      tidy.push_back({row, "Other side " + k, std::to_string(v)});
    for (const auto& [k, v] : g.reasons)
      tidy.push_back({row, "Not comparable: " + k, std::to_string(v)});
  }
  t.note = c.groups.empty()
               ? "No failure group in either campaign."
               : "A group is new in B only when A ran some of its models and they did not fail "
                 "there; one whose models all failed in A another way is failing another way, and "
                 "one whose models A did not run (invalid, not run, not planned) is not "
                 "comparable: neither trips --fail-on.";
  return t;
}

Table not_comparable_table(const Comparison& c, Tidy& tidy) {
  Table t;
  t.id = "not_comparable";
  t.title = "Models in both that one side did not run";
  t.header = {"Why", "Models"};
  for (const auto& [why, n] : c.not_comparable_reasons) {
    t.rows.push_back({why, std::to_string(n)});
    tidy.push_back({why, "Models", std::to_string(n)});
  }
  t.note = c.not_comparable_reasons.empty()
               ? "None: both sides ran every model they share."
               : "Our harness's limits or the model's own problem, not the converter's: these "
                 "models count in no change, regression or group.";
  return t;
}

json side_json(const CompareSide& s) {
  return {{"campaign", s.campaign},    {"db", s.db},         {"finished", s.finished},
          {"models", s.models.size()}, {"config", s.config}, {"versions", s.versions}};
}

}  // namespace

reports::PrintedReport printed_comparison(const Comparison& c) {
  reports::PrintedReport r;
  r.title = "Campaign comparison: " + side_title(c.a) + " and " + side_title(c.b);
  r.tables.push_back(differences_table(c, r.tidy["differences"]));
  r.tables.push_back(models_table(c));
  r.tables.push_back(transitions_table(c, r.tidy["transitions"]));
  r.tables.push_back(groups_table(c, r.tidy["groups"]));
  r.tables.push_back(not_comparable_table(c, r.tidy["not_comparable"]));
  return r;
}

json comparison_json(const Comparison& c) {
  json diffs = json::array(), transitions = json::array(), groups = json::array();
  for (const auto& d : c.differences)
    diffs.push_back({{"setting", d.setting}, {"a", d.a}, {"b", d.b}});
  for (const auto& x : c.transitions)
    transitions.push_back(
        {{"from", x.from}, {"to", x.to}, {"models", x.models}, {"examples", x.examples}});
  for (const auto& g : c.groups)
    groups.push_back({{"status", g.status},
                      {"outcome", g.outcome},
                      {"signature", g.signature},
                      {"size_a", g.size_a},
                      {"size_b", g.size_b},
                      {"group_a", g.id_a ? json(*g.id_a) : json()},
                      {"group_b", g.id_b ? json(*g.id_b) : json()},
                      {"representative", g.representative},
                      {"message", g.message},
                      {"other_side", g.other_side},
                      {"not_comparable_reasons", g.reasons}});
  return {{"a", side_json(c.a)},
          {"b", side_json(c.b)},
          {"differences", diffs},
          {"models",
           {{"in_both", c.matched},
            {"by_hash", c.by_hash},
            {"by_position", c.by_position},
            {"by_name", c.by_name},
            {"only_a", c.only_a},
            {"only_b", c.only_b},
            {"changed", c.changed},
            {"regressed", c.regressed},
            {"not_comparable", c.not_comparable},
            {"not_comparable_reasons", c.not_comparable_reasons}}},
          {"transitions", transitions},
          {"groups", groups},
          {"new_groups", c.count("new")},
          {"fixed_groups", c.count("fixed")},
          {"still_failing_groups", c.count("still")},
          {"changed_groups", c.count("changed")},
          {"not_comparable_groups", c.count("not_comparable")},
          {"complete", c.complete()},
          {"no_change", c.no_change()}};
}

std::string comparison_report(const Comparison& c, reports::ReportFormat format, bool raw_csv) {
  using F = reports::ReportFormat;
  switch (format) {
    case F::kJson:
      return json_text(comparison_json(c), 2) + "\n";
    case F::kCsv:
      return reports::render_csv(printed_comparison(c), raw_csv);
    case F::kLatex:
      return reports::render_latex(printed_comparison(c));
    case F::kHtml:
      return reports::render_html(printed_comparison(c));
    case F::kMarkdown:
      break;
  }
  return reports::render_markdown(printed_comparison(c));
}

}  // namespace convfail::campaign
