#include "campaign/analysis/campaign_breakdown.h"

#include <algorithm>
#include <set>

#include "campaign/campaign_types.h"
#include "campaign/outcomes.h"
#include "exec/signature.h"

namespace convfail::campaign {
namespace {

constexpr const char* kAllCompared = "all compared models";

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// Torchvision's architectures by name (what its detection, segmentation, video and optical_flow
// submodules list; the rest classify images).
std::string torchvision_family(const std::string& arch) {
  static const std::vector<std::pair<const char*, const char*>> kPrefixes = {
      {"fasterrcnn_", "detection"},
      {"fcos_", "detection"},
      {"keypointrcnn_", "detection"},
      {"maskrcnn_", "detection"},
      {"retinanet_", "detection"},
      {"ssd300_", "detection"},
      {"ssdlite320_", "detection"},
      {"deeplabv3_", "segmentation"},
      {"fcn_", "segmentation"},
      {"lraspp_", "segmentation"},
      {"mc3_", "video"},
      {"mvit_", "video"},
      {"r2plus1d_", "video"},
      {"r3d_", "video"},
      {"s3d", "video"},
      {"swin3d_", "video"},
      {"raft_", "optical flow"}};
  for (const auto& [prefix, family] : kPrefixes)
    if (starts_with(arch, prefix)) return family;
  return "vision classification";
}

BreakdownRow blank_row(const std::string& label) {
  BreakdownRow r;
  r.label = label;
  for (const auto& o : outcome_classes()) r.counts[o] = 0;
  return r;
}

void count(BreakdownRow& r, const std::string& outcome) {
  ++r.counts[outcome];
  ++r.models;
}

// The study's figures (torch.onnx): conversion failure, ORT failure, mismatch, success.
BreakdownRow study_row(const std::string& label, long conv, long ort, long mm, long ok,
                       const std::string& note = "") {
  BreakdownRow r = blank_row(label);
  r.counts[kConversionFailure] = conv;
  r.counts[kOrtFailure] = ort;
  r.counts[kMismatch] = mm;
  r.counts[kSuccess] = ok;
  r.models = conv + ort + mm + ok;
  r.reference = true;
  r.note = note;
  return r;
}

void tolerance_curve(const std::vector<StoredModel>& models, CampaignBreakdown& b) {
  std::map<std::string, ToleranceRow> by_kind;
  ToleranceRow total;
  total.kind = kAllCompared;
  total.failing.assign(curve_tolerances().size(), 0);
  for (const auto& m : models) {
    if (m.outcome != kSuccess && m.outcome != kMismatch) continue;
    ++b.compared;
    if (!m.min_tolerance) {
      ++b.tolerance_unknown;
      continue;
    }
    std::string kind = m.difference_kind.empty() ? "no difference" : m.difference_kind;
    ToleranceRow& row = by_kind[kind];
    if (row.kind.empty()) {
      row.kind = kind;
      row.failing.assign(curve_tolerances().size(), 0);
    }
    for (ToleranceRow* r : {&row, &total}) {
      ++r->models;
      r->mismatched += m.outcome == kMismatch;
      for (std::size_t i = 0; i < curve_tolerances().size(); ++i)
        r->failing[i] += fails_at(*m.min_tolerance, curve_tolerances()[i]);
    }
  }
  for (auto& [kind, row] : by_kind) b.tolerance.push_back(row);
  b.tolerance.push_back(total);
}

void group_tolerances(const std::vector<StoredModel>& models,
                      const std::vector<std::int64_t>& groups, CampaignBreakdown& b) {
  std::map<std::int64_t, GroupTolerance> by_group;
  for (auto id : groups) by_group[id].group = id;
  for (const auto& m : models) {
    if (!m.group_id) continue;
    auto it = by_group.find(*m.group_id);
    if (it == by_group.end()) continue;
    GroupTolerance& g = it->second;
    ++g.models;
    if (!m.min_tolerance) continue;
    ++g.known;
    g.passes_from = std::max(g.passes_from.value_or(0), *m.min_tolerance);
  }
  for (auto id : groups) b.group_tolerance.push_back(by_group[id]);
}

void kernel_table(const std::vector<StoredModel>& models, CampaignBreakdown& b) {
  std::map<std::string, KernelRow> rows;
  std::set<std::string> types;
  for (const auto& m : models) {
    if (m.outcome != kOrtFailure) continue;
    ++b.ort_failures;
    auto k = exec::parse_missing_kernel_signature(m.signature);
    if (!k) {
      ++b.ort_other;
      continue;
    }
    std::string op = k->op + "(" + std::to_string(k->opset) + ")";
    std::string type = k->types.empty() ? "unknown" : k->types.front();
    for (std::size_t i = 1; i < k->types.size(); ++i) type += "/" + k->types[i];
    KernelRow& row = rows[op];
    row.op = op;
    ++row.types[type];
    ++row.models;
    types.insert(type);
  }
  for (const auto& t : all_dtypes())
    if (types.erase(t)) b.kernel_types.push_back(t);
  b.kernel_types.insert(b.kernel_types.end(), types.begin(), types.end());
  for (auto& [op, row] : rows) b.kernels.push_back(row);
  std::stable_sort(b.kernels.begin(), b.kernels.end(),
                   [](const KernelRow& x, const KernelRow& y) { return x.models > y.models; });
}

void family_and_dtype_tables(const std::vector<StoredModel>& models, CampaignBreakdown& b) {
  static const std::vector<std::string> kFamilies = {
      "vision classification", "detection", "segmentation", "video",
      "optical flow",          "audio",     "text",         "script"};
  std::map<std::string, BreakdownRow> families;
  std::map<std::string, BreakdownRow> mains, touched;
  BreakdownRow real = blank_row("all real models"), synthetic = blank_row("all synthetic models");
  for (const auto& m : models) {
    if (m.source == "synthetic") {
      count(synthetic, m.outcome);
      if (m.main_dtype.empty())
        ++b.synthetic_without_main;
      else
        count(mains.emplace(m.main_dtype, blank_row(m.main_dtype)).first->second, m.outcome);
      if (m.dtypes.empty()) {
        ++b.synthetic_without_dtypes;
        continue;
      }
      for (const auto& d : m.dtypes) {
        auto [it, fresh] = touched.emplace(d, blank_row(d));
        count(it->second, m.outcome);
      }
      continue;
    }
    std::string family = study_family(m.source, m.name);
    auto [it, fresh] = families.emplace(family, blank_row(family));
    count(it->second, m.outcome);
    if (family != "script") count(real, m.outcome);
  }
  for (const auto& f : kFamilies)
    if (auto it = families.find(f); it != families.end()) b.families.push_back(it->second);
  for (auto& [f, row] : families)
    if (std::find(kFamilies.begin(), kFamilies.end(), f) == kFamilies.end())
      b.families.push_back(row);
  if (real.models) b.families.push_back(real);
  b.families.push_back(study_row("the study's torch.onnx real models", 20, 27, 11, 1361,
                                 "plus 342 failures in the Hugging Face wrapper"));
  for (const auto& d : all_dtypes()) {
    if (auto it = mains.find(d); it != mains.end()) b.dtypes.push_back(it->second);
    if (auto it = touched.find(d); it != touched.end()) b.touched_dtypes.push_back(it->second);
  }
  if (synthetic.models) {
    b.dtypes.push_back(synthetic);
    b.touched_dtypes.push_back(synthetic);
  }
  b.dtypes.push_back(study_row("the study's torch.onnx synthetic models", 2, 741, 100, 881));
}

}  // namespace

const std::vector<double>& curve_tolerances() {
  static const std::vector<double> k = {1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7};
  return k;
}

std::string study_family(const std::string& source, const std::string& name,
                         const std::string& stored) {
  if (source == "synthetic") return "synthetic";
  if (source == "script") return "script";
  if (stored == "classification") return "vision classification";
  if (stored == "optical_flow") return "optical flow";
  if (!stored.empty()) return stored;  // detection, segmentation, video, audio, text
  if (source == "torchvision")
    return torchvision_family(starts_with(name, "torchvision:") ? name.substr(12) : name);
  if (source.find("audio") != std::string::npos) return "audio";  // torchaudio
  if (source == "huggingface" || source == "transformers" || source == "text") return "text";
  return source;
}

std::string shown_failure(const std::string& signature, const std::string& message) {
  std::string first = message.substr(0, message.find('\n'));
  if (first.empty()) return signature;
  auto k = exec::parse_missing_kernel_signature(signature);
  if (!k || k->types.empty()) return first;
  std::string types;
  for (const auto& t : k->types) types += (types.empty() ? "" : ", ") + t;
  return first + " (on " + types + ")";
}

CampaignBreakdown breakdown_campaign(const std::vector<StoredModel>& models,
                                     const std::vector<std::int64_t>& mismatch_groups) {
  CampaignBreakdown b;
  tolerance_curve(models, b);
  group_tolerances(models, mismatch_groups, b);
  kernel_table(models, b);
  family_and_dtype_tables(models, b);
  std::map<std::string, long> reasons;
  for (const auto& m : models)
    if (m.outcome == kNotRun) ++reasons[m.message.substr(0, m.message.find('\n'))];
  b.not_run.assign(reasons.begin(), reasons.end());
  std::stable_sort(b.not_run.begin(), b.not_run.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  return b;
}

}  // namespace convfail::campaign
