#include <nlohmann/json.hpp>

#include "reports/render.h"
#include "repro/verdicts.h"

namespace convfail::reports {

nlohmann::json runtime_history_json(const RuntimeHistory& h) {
  using nlohmann::json;
  auto opt = [](const std::optional<std::string>& v) { return v ? json(*v) : json(); };
  return {{"issue", h.issue},
          {"symptom", h.symptom},
          {"model", h.model},
          {"from", h.from_version},
          {"to", h.to_version},
          {"first_bad", opt(h.first_bad)},
          {"regressed_in", opt(h.regressed_in)},
          {"fixed_in", opt(h.fixed_in)},
          {"newest_known", opt(h.newest_known)},
          {"still_failing", h.still_failing},
          {"summary", runtime_history_text(h)}};
}

std::string render_json(const ReportData& d) {
  using nlohmann::json;
  json out = {{"source", d.source},
              {"issues", d.issues},
              {"missing", d.missing},  // the key of issues without a label in every count
              {"converters", d.converters},
              {"issues_by_converter", d.issues_by_converter},
              {"stage_by_converter", d.stage_by_converter},
              {"symptom_by_converter", d.symptom_by_converter},
              {"cause_by_symptom", d.cause_by_symptom},
              {"subtype_by_converter", d.subtype_by_converter},
              {"period", d.period},
              {"issues_by_period", d.issues_by_period},
              {"causes_by_period", d.causes_by_period}};
  if (!d.partial.empty()) out["partial"] = d.partial;
  if (d.cells) out["cells"] = {{"manual", d.cells->manual}, {"automatic", d.cells->automatic}};
  if (d.compare_source) {
    out["compare_source"] = *d.compare_source;
    json agreement = json::array();
    for (const auto& a : d.agreement) {
      json diffs = json::array();
      for (const auto& [x, y, n] : a.differences)
        diffs.push_back({{"source", x}, {"compare", y}, {"issues", n}});
      agreement.push_back({{"dimension", a.dimension},
                           {"issues", a.n},
                           {"observed", a.observed},
                           {"kappa", a.kappa},
                           {"ci_low", a.ci_low},
                           {"ci_high", a.ci_high},
                           {"differences", diffs}});
    }
    out["agreement"] = agreement;
    // Sources labeled by a trained model: how many compared issues it was trained on.
    json trained = json::array();
    for (const auto& t : d.training_overlap)
      trained.push_back({{"source", t.source},
                         {"run_id", t.run_id},
                         {"model_id", t.model_id},
                         {"compared", t.compared},
                         {"trained_on", t.trained_on}});
    out["training_overlap"] = trained;
  }
  if (d.repro) {
    json repro = json::object();
    for (const auto& [symptom, o] : *d.repro)
      repro[symptom] = {{"confirmed", o.confirmed},
                        {"other_failure", o.other_failure},
                        {repro::kNotReproduced, o.not_reproduced},
                        {repro::kNotRunnable, o.not_runnable},
                        {"not_run", o.not_run}};
    out["repro_by_symptom"] = repro;
  }
  if (!d.runtime_history.empty()) {
    json rows = json::array();
    for (const auto& h : d.runtime_history) rows.push_back(runtime_history_json(h));
    out["runtime_history"] = rows;
  }
  return out.dump(2) + "\n";
}

}  // namespace convfail::reports
