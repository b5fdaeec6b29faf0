#include "classifier/predict.h"

#include <algorithm>

namespace convfail::classifier {

namespace {

nlohmann::json optional_label(const std::optional<std::string>& l) {
  return l ? nlohmann::json(*l) : nlohmann::json(nullptr);
}

// The confidence of a predictor's probability (or the rules' raw confidence), calibrated on its
// out-of-fold predictions when train could.
double calibrated(const DimensionModel& dm, const std::string& predictor, double p) {
  if (predictor == kPredictorRules) return dm.rules_calibration.apply(p);
  if (predictor == kPredictorBlend) return dm.blend_calibration.apply(p);
  return dm.calibration.empty() ? p : dm.calibration.apply(p);
}

std::size_t argmax(const std::vector<double>& p) {
  return static_cast<std::size_t>(std::max_element(p.begin(), p.end()) - p.begin());
}

}  // namespace

std::string predictor_for(const std::string& dimension, const TrainedModel* model,
                          const PredictorOverride& override_predictors) {
  auto it = override_predictors.find(dimension);
  if (it != override_predictors.end()) return it->second;
  const DimensionModel* dm = model ? model->dimension(dimension) : nullptr;
  return dm ? dm->predictor : kPredictorRules;
}

std::vector<DimensionResult> predict_issue(const Engine& engine, const Segments& segments,
                                           const Classification& rules, const TrainedModel* model,
                                           const PredictorOverride& override_predictors,
                                           const std::vector<ExecutionEvidence>& execution) {
  std::set<std::string> features;
  if (model) features = issue_features(segments, rules);
  std::vector<DimensionResult> out;
  for (const Decision& text : rules.decisions) {
    DimensionResult r;
    const std::string& dim = text.dimension;
    const DimensionModel* dm = model ? model->dimension(dim) : nullptr;
    r.predictor = predictor_for(dim, model, override_predictors);
    if (!dm) r.predictor = kPredictorRules;  // the model was not trained on this dimension
    for (const ExecutionEvidence& e : execution)
      if (e.dimension == dim) r.execution.push_back(e);
    r.without_execution = text.label;
    nlohmann::json rules_json = {{"label", optional_label(text.label)},
                                 {"confidence", text.confidence},
                                 {"abstained", text.abstained}};
    if (r.predictor == kPredictorRules) {
      Decision d = text;
      if (!r.execution.empty())
        for (Decision& x : engine.decide(rules.evidence, execution_votes(r.execution)))
          if (x.dimension == dim) d = std::move(x);
      nlohmann::json scores = nlohmann::json::object();
      for (const auto& [l, s] : d.scores) scores[l] = s;
      r.scores = {{"scores", scores}, {"abstained", d.abstained}};
      r.scores["rank"] = d.confidence;
      if (dm && !dm->rules_calibration.method.empty()) {
        r.scores["rules"] = rules_json;
        r.scores["raw_confidence"] = d.confidence;
        d.confidence = calibrated(*dm, kPredictorRules, d.confidence);
      }
      r.decision = std::move(d);
    } else {
      Prediction p = predict(*model, *dm, features);
      std::vector<double> pv(dm->labels.size());
      for (std::size_t k = 0; k < pv.size(); ++k) pv[k] = p.probabilities.at(dm->labels[k]);
      nlohmann::json top = nlohmann::json::array();
      for (const auto& [f, w] : p.top_features) top.push_back({{"feature", f}, {"weight", w}});
      nlohmann::json scores = nlohmann::json::object();
      for (const auto& [l, s] : text.scores) scores[l] = s;
      r.scores = {{"scores", scores},
                  {"abstained", false},
                  {"rules", rules_json},
                  {"model",
                   {{"id", model->id},
                    {"probabilities", p.probabilities},
                    {"probability", p.probability},
                    {"calibrated", !dm->calibration.empty()},
                    {"top_features", top}}}};
      if (r.predictor == kPredictorBlend) {
        std::optional<std::size_t> vote;
        if (!text.abstained && text.label) {
          auto it = std::find(dm->labels.begin(), dm->labels.end(), *text.label);
          if (it != dm->labels.end()) vote = static_cast<std::size_t>(it - dm->labels.begin());
        }
        pv = blend_probabilities(pv, vote, dm->blend_weight);
        nlohmann::json probabilities = nlohmann::json::object();
        for (std::size_t k = 0; k < pv.size(); ++k) probabilities[dm->labels[k]] = pv[k];
        r.scores["blend"] = {{"rules_weight", dm->blend_weight}, {"probabilities", probabilities}};
      }
      r.without_execution = dm->labels[argmax(pv)];
      std::vector<double> pe = apply_execution(pv, dm->labels, r.execution, dim);
      std::size_t k = argmax(pe);
      Decision d = text;
      d.label = dm->labels[k];
      if (text.label != d.label) d.subtype.reset();  // the rules' subtype belongs to their cause
      d.confidence = calibrated(*dm, r.predictor, pe[k]);
      d.abstained = false;
      r.scores["rank"] = pe[k];
      r.decision = std::move(d);
    }
    r.scores["predictor"] = r.predictor;
    if (!r.execution.empty()) {
      nlohmann::json ev = nlohmann::json::array();
      for (const ExecutionEvidence& e : r.execution) ev.push_back(execution_evidence_json(e));
      r.scores["execution"] = ev;
      r.scores["without_execution"] = optional_label(r.without_execution);
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace convfail::classifier
