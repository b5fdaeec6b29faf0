// The campaign's figures beyond the outcome table (issue #44), computed from the stored rows
// without a rerun: the tolerance curve (how many compared models fail at atol = rtol = t for t
// from 1e-2 down to 1e-7, per kind of difference) and each mismatch group's smallest passing
// tolerance; the ONNX Runtime failures by operator and element type (missing kernels); the study's
// Table 11 per family of real models and per type of synthetic models, beside the study's figures.
// campaign/report/campaign_report.h prints it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "campaign/store/campaign_store.h"

namespace convfail::campaign {

// The tolerances of the curve: 1e-2 ... 1e-7.
const std::vector<double>& curve_tolerances();

// Whether a model whose smallest passing tolerance is `min_tolerance` fails at atol = rtol = t.
inline bool fails_at(double min_tolerance, double t) {
  return min_tolerance > t;
}

struct ToleranceRow {
  std::string kind;           // difference_kind; "all compared models" for the total
  long models = 0;            // compared models of this kind
  long mismatched = 0;        // mismatches at the campaign's own tolerances
  std::vector<long> failing;  // per curve_tolerances(): models that fail at t
};

struct GroupTolerance {
  std::int64_t group = 0;
  long models = 0, known = 0;  // models of the group; those with a stored min_tolerance
  // The smallest t at which every model of the group passes (the largest min_tolerance);
  // >= 1e308: none does. None when no model of the group has one.
  std::optional<double> passes_from;
};

// One row of Table 11 (outcome counts) for a family or a type.
struct BreakdownRow {
  std::string label;
  std::map<std::string, long> counts;  // every outcome class present
  long models = 0;
  bool reference = false;  // the study's figures, not this campaign's
  std::string note;        // reference: what is counted apart
};

struct KernelRow {
  std::string op;                     // Relu(14)
  std::map<std::string, long> types;  // element type -> ort_failure models
  long models = 0;
};

struct CampaignBreakdown {
  long compared = 0, tolerance_unknown = 0;     // success + mismatch; of them without min_tolerance
  std::vector<ToleranceRow> tolerance;          // per kind, then the total
  std::vector<GroupTolerance> group_tolerance;  // mismatch groups, in group order
  std::vector<BreakdownRow> families;           // real models (not synthetic) per family
  std::vector<BreakdownRow> dtypes;             // synthetic models per main type (each once)
  long synthetic_without_main = 0;              // synthetic rows that record no main type
  std::vector<BreakdownRow> touched_dtypes;     // synthetic models per type they use (overlap)
  long synthetic_without_dtypes = 0;            // synthetic rows that record no types
  std::vector<KernelRow> kernels;               // missing kernels, most models first
  std::vector<std::string> kernel_types;        // the table's columns, all_dtypes() order first
  long ort_failures = 0, ort_other = 0;         // ort_failure models; of them not a missing kernel
  // The not_run models' reasons (their messages' first lines) and how many models each, most
  // models first: what the harness could not run, apart from every verdict.
  std::vector<std::pair<std::string, long>> not_run;
};

// The study's family of a real model (the rows of the per-family table): vision classification,
// detection, segmentation, video, optical flow, audio, text; "script" for script: sources,
// "synthetic" for synthetic ones. `stored` is the family the campaign stored with the model
// (torchvision: classification, detection, segmentation, video, optical_flow); without it the
// family is derived from the source and the name (torchvision's architecture names).
std::string study_family(const std::string& source, const std::string& name,
                         const std::string& stored = "");

// A failure group as people read it: its representative's message as said (its first line),
// else the signature; a missing kernel's message (which names no type) followed by the types its
// signature holds: "Could not find an implementation for Relu(14) node with name '/Relu' (on
// int16)".
std::string shown_failure(const std::string& signature, const std::string& message);

// The figures of `models` (load_models) and their groups (id, outcome). Mismatch groups
// get their smallest passing tolerance in the order of `mismatch_groups`.
CampaignBreakdown breakdown_campaign(const std::vector<StoredModel>& models,
                                     const std::vector<std::int64_t>& mismatch_groups);

}  // namespace convfail::campaign
