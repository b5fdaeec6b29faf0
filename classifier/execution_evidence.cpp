#include "classifier/execution_evidence.h"

#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <set>

#include "classifier/predictor_choice.h"
#include "repro/verdicts.h"

namespace convfail::classifier {

namespace {

// The largest weight: twice the strongest text rule's (2.0), so a confirmed failure outvotes the
// text's evidence for one other label but not a pile of it.
constexpr double kMaxWeight = 4;

bool is_crash(const ExecutionVerdict& v) {
  return v.verdict == repro::kCrashReproduced;
}
bool export_crash(const ExecutionVerdict& v) {
  return v.kind == "script" && is_crash(v) && v.step == "export";
}
bool model_step(const std::string& step) {
  return step == "parse" || step == "checker" || step == "shape_inference" || step == "session" ||
         step == "run";
}

constexpr const char* kUnsupported =
    R"(not (yet )?supported|unsupported|exporting the operator|no op registered|symbolic|opset)";
constexpr const char* kTracing =
    R"(trac(e|ed|ing|er)\b|torch\.jit|jit::|scripting|torchscript|graph capture|dynamo|torch\.fx)";
constexpr const char* kGraphPass = R"(_jit_pass|constant.?fold|optimi[sz]|\bfus(e|ion)\b|peephole)";
constexpr const char* kSerialization = R"(protobuf|2 ?gb|seriali[sz]|external data|exceeds)";

// Whether the signature (normalised, lower-case error text) matches one of the patterns above,
// each compiled once (thread-safe static initialisation).
bool signature_says(const ExecutionVerdict& v, const char* pattern) {
  static const std::map<const char*, std::unique_ptr<RE2>> compiled = [] {
    std::map<const char*, std::unique_ptr<RE2>> out;
    RE2::Options o;
    o.set_case_sensitive(false);
    o.set_log_errors(false);
    for (const char* p : {kUnsupported, kTracing, kGraphPass, kSerialization})
      out[p] = std::make_unique<RE2>(p, o);
    return out;
  }();
  return RE2::PartialMatch(v.signature, *compiled.at(pattern));
}

struct KindRule {
  ExecutionKind kind;
  std::function<bool(const ExecutionVerdict&)> applies;
};

const std::vector<KindRule>& kind_rules() {
  static const std::vector<KindRule> rules = {
      {{"export_crash", "symptom", "crash", 0.9,
        "the script crashes inside torch.onnx.export: the converter itself fails"},
       [](const ExecutionVerdict& v) { return export_crash(v) && v.signature != "timeout"; }},
      {{"export_timeout", "symptom", "hang", 0.7, "torch.onnx.export never finishes (timeout)"},
       [](const ExecutionVerdict& v) { return export_crash(v) && v.signature == "timeout"; }},
      {{"model_fails", "symptom", "wrong_model", 0.85,
        "the converted model fails to parse, in the ONNX checker, shape inference or ONNX "
        "Runtime"},
       [](const ExecutionVerdict& v) { return is_crash(v) && model_step(v.step); }},
      {{"wrong_output", "symptom", "wrong_model", 0.9,
        "the converted model's outputs differ from the reference"},
       [](const ExecutionVerdict& v) { return v.verdict == repro::kWrongOutputReproduced; }},
      {{"unsupported_operator", "stage", "node_conversion", 0.9,
        "the export crash names an unsupported operator or a symbolic function"},
       [](const ExecutionVerdict& v) {
         return export_crash(v) && signature_says(v, kUnsupported);
       }},
      {{"tracing", "stage", "load_model", 0.6, "the export crash is in tracing or scripting"},
       [](const ExecutionVerdict& v) { return export_crash(v) && signature_says(v, kTracing); }},
      {{"graph_pass", "stage", "optimization", 0.6, "the export crash is in a graph pass"},
       [](const ExecutionVerdict& v) { return export_crash(v) && signature_says(v, kGraphPass); }},
      {{"serialization", "stage", "export", 0.7,
        "the model file does not parse, or the crash is in serialising it"},
       [](const ExecutionVerdict& v) {
         return is_crash(v) && (v.step == "parse" || signature_says(v, kSerialization));
       }},
  };
  return rules;
}

double logit(double p) {
  p = std::clamp(p, 1e-6, 1 - 1e-6);
  return std::log(p / (1 - p));
}

void set_weight(ExecutionWeight& w) {
  double precision = (w.agreed + kExecutionPriorStrength * w.kind.prior) /
                     (static_cast<double>(w.n) + kExecutionPriorStrength);
  w.weight = std::clamp(logit(precision) - logit(w.base), 0.0, kMaxWeight);
}

}  // namespace

const std::vector<ExecutionKind>& execution_kinds() {
  static const std::vector<ExecutionKind> kinds = [] {
    std::vector<ExecutionKind> out;
    for (const KindRule& r : kind_rules()) out.push_back(r.kind);
    return out;
  }();
  return kinds;
}

ExecutionWeights default_execution_weights() {
  ExecutionWeights out;
  for (const ExecutionKind& k : execution_kinds()) {
    ExecutionWeight w;
    w.kind = k;
    set_weight(w);
    out.by_key[k.key] = w;
  }
  return out;
}

ExecutionWeights calibrate_execution_weights(
    const std::vector<std::vector<ExecutionVerdict>>& verdicts,
    const std::map<std::string, std::vector<std::string>>& gold) {
  ExecutionWeights out = default_execution_weights();
  for (auto& [key, w] : out.by_key) {
    auto g = gold.find(w.kind.dimension);
    if (g == gold.end()) continue;
    // Laplace-smoothed over the labels seen, so that a label absent from training (hang) does not
    // make the log-odds of its base rate infinite.
    long labeled = 0, with_label = 0;
    std::set<std::string> seen;
    for (const std::string& l : g->second) {
      if (l.empty()) continue;
      ++labeled;
      with_label += l == w.kind.label;
      seen.insert(l);
    }
    if (labeled) w.base = (with_label + 1.0) / (static_cast<double>(labeled) + seen.size() + 1.0);
  }
  ExecutionWeights all = default_execution_weights();
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    std::vector<ExecutionEvidence> ev = execution_evidence(verdicts[i], all);
    out.issues += !ev.empty();
    for (const ExecutionEvidence& e : ev) {
      auto g = gold.find(e.dimension);
      if (g == gold.end() || i >= g->second.size() || g->second[i].empty()) continue;
      ExecutionWeight& w = out.by_key[e.key];
      ++w.n;
      w.agreed += g->second[i] == e.label;
    }
  }
  for (auto& [key, w] : out.by_key) set_weight(w);
  return out;
}

std::string execution_summary(const ExecutionVerdict& v) {
  std::string what;
  if (v.verdict == repro::kWrongOutputReproduced) {
    what = "wrong output of the converted model";
  } else if (v.step == "export") {
    what = v.signature == "timeout" ? "torch.onnx.export does not finish"
                                    : "crash in torch.onnx.export";
  } else if (v.step == "session" || v.step == "run") {
    what = "crash in ONNX Runtime";
  } else if (v.step == "checker") {
    what = "the converted model fails the ONNX checker";
  } else if (v.step == "shape_inference") {
    what = "the converted model fails ONNX shape inference";
  } else if (v.step == "parse") {
    what = "the converted model file does not parse";
  } else {
    what = v.verdict + (v.step.empty() ? "" : " at " + v.step);
  }
  std::string out = "confirmed by re-execution: " + what;
  if (!v.signature.empty() && v.signature != "timeout") out += ", signature " + v.signature;
  out += " (" + v.kind + " run " + std::to_string(v.repro_run_id) + ")";
  return out;
}

std::vector<ExecutionEvidence> execution_evidence(const std::vector<ExecutionVerdict>& verdicts,
                                                  const ExecutionWeights& weights) {
  std::vector<ExecutionEvidence> out;
  for (const KindRule& r : kind_rules()) {
    auto w = weights.by_key.find(r.kind.key);
    if (w == weights.by_key.end() || w->second.weight <= 0) continue;
    for (const ExecutionVerdict& v : verdicts) {
      if (!r.applies(v)) continue;
      out.push_back(
          {r.kind.key, r.kind.dimension, r.kind.label, w->second.weight, v, execution_summary(v)});
      break;
    }
  }
  return out;
}

std::vector<Vote> execution_votes(const std::vector<ExecutionEvidence>& evidence) {
  std::vector<Vote> out;
  for (const ExecutionEvidence& e : evidence) out.push_back({e.dimension, e.label, "", e.weight});
  return out;
}

std::vector<double> apply_execution(const std::vector<double>& p,
                                    const std::vector<std::string>& labels,
                                    const std::vector<ExecutionEvidence>& evidence,
                                    const std::string& dimension) {
  std::vector<double> shift(p.size(), 0.0);
  bool any = false;
  for (const ExecutionEvidence& e : evidence)
    for (std::size_t k = 0; k < p.size() && k < labels.size(); ++k)
      if (e.dimension == dimension && labels[k] == e.label) {
        shift[k] += e.weight;
        any = true;
      }
  return any ? shift_log_odds(p, shift) : p;
}

nlohmann::json execution_weights_json(const ExecutionWeights& w) {
  nlohmann::json kinds = nlohmann::json::object();
  for (const auto& [key, x] : w.by_key)
    kinds[key] = {{"dimension", x.kind.dimension},
                  {"label", x.kind.label},
                  {"prior", x.kind.prior},
                  {"base", x.base},
                  {"n", x.n},
                  {"agreed", x.agreed},
                  {"weight", x.weight}};
  return {{"issues", w.issues}, {"kinds", kinds}};
}

ExecutionWeights execution_weights_from_json(const nlohmann::json& j) {
  ExecutionWeights out = default_execution_weights();
  out.issues = j.value("issues", 0L);
  if (!j.contains("kinds")) return out;
  for (const auto& [key, x] : j.at("kinds").items()) {
    auto it = out.by_key.find(key);
    if (it == out.by_key.end()) continue;
    it->second.base = x.at("base").get<double>();
    it->second.n = x.at("n").get<long>();
    it->second.agreed = x.at("agreed").get<long>();
    it->second.weight = x.at("weight").get<double>();
  }
  return out;
}

nlohmann::json execution_evidence_json(const ExecutionEvidence& e) {
  return {{"kind", e.key},
          {"dimension", e.dimension},
          {"label", e.label},
          {"weight", e.weight},
          {"repro_run_id", e.verdict.repro_run_id},
          {"run_kind", e.verdict.kind},
          {"verdict", e.verdict.verdict},
          {"step", e.verdict.step},
          {"signature", e.verdict.signature},
          {"summary", e.summary}};
}

}  // namespace convfail::classifier
